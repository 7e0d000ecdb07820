import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';

/** What an unsandboxed server may touch, said once for the warning and its tests. */
export const UNSANDBOXED_MEANING = 'It runs with your files, your network and your keyring, as you do.';

/** Why the server runs unsandboxed, as a phrase after "Unsandboxed —". */
export function unsandboxedReason(reason: string | null): string {
  if (reason === null || reason.trim() === '') return 'no reason was recorded';
  // The flag is the person's own choice: say so rather than show a bare option.
  if (reason.trim() === '--no-sandbox') return 'started with --no-sandbox';
  // The warning ends the phrase itself.
  return reason.trim().replace(/\.+$/, '');
}

export interface NetworkView {
  label: string;
  /** The only hosts the server may reach (mode `hosts`); empty otherwise. */
  hosts: readonly string[];
}

export function networkView(network: ServerSandboxSummary['network']): NetworkView {
  const loopback = network.loopbackPorts.map((port) => `127.0.0.1:${port}`);
  switch (network.mode) {
    case 'none':
      return { label: 'No network', hosts: [] };
    case 'loopback':
      return { label: "Only these ports of this computer's loopback", hosts: loopback };
    case 'hosts':
      return network.hosts.length === 0 && loopback.length === 0 ? { label: 'No host allowed', hosts: [] } : { label: 'Only these hosts', hosts: [...network.hosts, ...loopback] };
  }
}

export interface LimitRow {
  label: string;
  value: string;
}

/** Processes, memory and the mechanism enforcing them; a missing limit reads "not enforced", never blank. */
export function limitRows(limits: ServerSandboxSummary['limits']): LimitRow[] {
  const or = (value: string | null) => value ?? 'not enforced';
  return [
    { label: 'Processes', value: or(limits.max_processes === null ? null : String(limits.max_processes)) },
    { label: 'Memory', value: or(limits.max_memory_mb === null ? null : `${limits.max_memory_mb} MB`) },
    { label: 'Mechanism', value: or(limits.mechanism === null ? null : limits.mechanism === 'cgroup2' ? 'cgroup v2' : 'cgroup v1') },
  ];
}

export interface EnvironmentRow {
  name: string;
  fromKeyring: boolean;
}

/** Variable names in recorded order; a keyring name the proxy left out of `env` is still listed, so no secret goes unseen. */
export function environmentRows(env: readonly string[], secrets: readonly string[]): EnvironmentRow[] {
  const keyring = new Set(secrets);
  const names = [...new Set([...env, ...secrets])];
  return names.map((name) => ({ name, fromKeyring: keyring.has(name) }));
}

/** One row of "Recent denials", read defensively from an `mcp.sandbox_denied` entry's data. */
export interface DenialRow {
  id: string;
  ts: string;
  /** `host:port`, an IPv6 host in brackets. */
  target: string;
  reason: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

export function denialRow(entry: AuditEntry): DenialRow {
  const { data } = entry;
  const host = text(data.host) ?? '—';
  const port = typeof data.port === 'number' && Number.isInteger(data.port) ? data.port : null;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  // A window's entry stands for several refusals of the host (docs/mcp-sandbox.md, "Refusals in the ledger").
  const count = typeof data.count === 'number' && Number.isInteger(data.count) && data.count > 1 ? data.count : null;
  const reason = text(data.reason) ?? '—';
  return { id: entry.id, ts: entry.ts, target: port === null ? shownHost : `${shownHost}:${port}`, reason: count === null ? reason : `${reason} (${count} times in this window)` };
}
