import { fileURLToPath } from 'node:url';
import type { RuntimeMode } from '../../src-shared/schemas/runtime.js';
import type { TlsFiles } from '../control/cockpit-server.js';

const DEFAULT_PORT = 8420;

/** Defaults follow spec 002 §11 (`channels.web`, `limits`). */
export interface RuntimeConfig {
  home: string;
  mode: RuntimeMode;
  host: string;
  port: number;
  insecureRemote: boolean;
  tls?: TlsFiles;
  allowedHosts: string[];
  /** Built cockpit served in headless mode; null when not built. */
  cockpitDir: string | null;
  wsMessagesPerMinute: number;
  checkpointIntervalMs: number;
  auditPollMs: number;
  shutdownGraceMs: number;
}

export function defaultCockpitDir(): string {
  return fileURLToPath(new URL('../../out/cockpit/', import.meta.url));
}

export function runtimeConfig(partial: Partial<RuntimeConfig> & { home: string; mode: RuntimeMode }): RuntimeConfig {
  return {
    host: '127.0.0.1',
    port: DEFAULT_PORT,
    insecureRemote: false,
    allowedHosts: [],
    cockpitDir: defaultCockpitDir(),
    wsMessagesPerMinute: 240,
    checkpointIntervalMs: 5 * 60_000,
    auditPollMs: 200,
    shutdownGraceMs: 30_000,
    ...partial,
  };
}
