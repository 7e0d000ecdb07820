import type { Session } from 'electron';
import type { ShellLogger } from './logger.js';

export type PermissionSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'>;

/**
 * Deny by default, with no exceptions. The cockpit needs no camera, location, clipboard,
 * USB or notification permission: native notifications are shown by the main process, so
 * a page asking for anything is either a bug or an injection, and either way the answer is no.
 */
export function denyAllPermissions(session: PermissionSession, logger: ShellLogger): void {
  session.setPermissionRequestHandler(function denyPermissionRequest(webContents, permission, callback) {
    logger.warn(`denied permission request "${permission}" from ${webContents.getURL() || 'an unloaded page'}`);
    callback(false);
  });
  // Checks are synchronous and frequent (feature detection), so they are denied without a log line.
  session.setPermissionCheckHandler(function denyPermissionCheck() {
    return false;
  });
  session.setDevicePermissionHandler(function denyDevicePermission() {
    return false;
  });
}
