import { describe, expect, it } from 'vitest';
import { denyAllPermissions } from './permissions.js';
import { createFakeElectron, FakeWebContents, memoryLogger } from './testing/fake-electron.js';

const PERMISSIONS = ['media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'hid', 'usb', 'serial', 'fullscreen', 'unknown'];

function setup() {
  const { fakes } = createFakeElectron();
  const session = fakes.session.defaultSession;
  const logger = memoryLogger();
  denyAllPermissions(session as never, logger);
  return { session, logger };
}

describe('permission policy', () => {
  it.each(PERMISSIONS)('denies the request for %s', (permission) => {
    const { session } = setup();
    const contents = new FakeWebContents();
    contents.url = 'app://cockpit/index.html';
    const answers: boolean[] = [];
    session.requestHandler!(contents, permission, (granted: boolean) => answers.push(granted), {});
    expect(answers).toEqual([false]);
  });

  it.each(PERMISSIONS)('answers false to the check for %s', (permission) => {
    const { session } = setup();
    expect(session.checkHandler!(null, permission, 'app://cockpit', {})).toBe(false);
  });

  it('denies device access', () => {
    const { session } = setup();
    expect(session.deviceHandler!({ deviceType: 'usb', origin: 'app://cockpit' })).toBe(false);
  });

  it('logs refused requests so a broken feature is explainable', () => {
    const { session, logger } = setup();
    session.requestHandler!(new FakeWebContents(), 'media', () => undefined, {});
    expect(logger.lines).toEqual([{ level: 'warn', message: 'denied permission request "media" from an unloaded page' }]);
  });
});
