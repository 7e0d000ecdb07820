import type { Host } from '../../../aip/policy/host-patterns.js';

/*
 * Listed ports of the host's loopback (a local database, a local model server). The sandbox has
 * its own network namespace, so its 127.0.0.1 is not the host's: these ports are reached through
 * the egress proxy like everything else, and every decision is audited the same way.
 *
 * Only the literal forms count. A name is only as trustworthy as its DNS answer, so a name that
 * resolves to loopback stays refused even on a listed port (the general rule of the proxy), and
 * `localhost` is taken as a word, never looked up: the answer must be the loopback itself, not
 * whatever the host's resolver maps it to. Other loopback spellings (`127.0.0.2`,
 * `[::ffff:127.0.0.1]`) are not these forms and stay with the general rule too.
 */

/** Where the person lists the ports; named in refusals so the fix is one edit away. */
export const LOOPBACK_POLICY_KEY = 'x-silas-sandbox.network.loopback_ports';

const LOOPBACK_FORMS = new Map([
  ['127.0.0.1', '127.0.0.1'],
  ['localhost', '127.0.0.1'],
  ['[::1]', '::1'],
]);

/** The loopback address a normalised CONNECT host literally names, or null for anything else. */
export function loopbackAddress(host: Host): string | null {
  return LOOPBACK_FORMS.get(host.name) ?? null;
}

export function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65_535;
}

/** The listed ports as a set; throws on anything that is not a TCP port, naming it. */
export function parseLoopbackPorts(ports: readonly number[] | undefined, owner: string): ReadonlySet<number> {
  for (const port of ports ?? []) {
    if (!isPort(port)) throw new Error(`${owner}: loopback port ${String(port)} is not a TCP port (1-65535)`);
  }
  return new Set(ports ?? []);
}

/** `host:port` as a CONNECT target and a Host header would write it. */
export function authority(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export function loopbackRefusal(address: string, port: number): string {
  return `silas egress proxy: ${authority(address, port)} (the host's loopback) is not allowed; to allow it, add ${port} to ${LOOPBACK_POLICY_KEY} in this server's policy.`;
}
