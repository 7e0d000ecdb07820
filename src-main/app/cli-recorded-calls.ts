import type { RecordedCall } from '../aip/trial/trial.js';
import { cliSecretStore, type SecretStore } from './cli-keyring.js';
import { openLedger } from './ledger.js';

/** Entries read per page while looking for a server's decisions, newest first. */
const PAGE = 1_000;
/** At most this many entries are read for one replay, whatever the ledger's size. */
export const MAX_SCANNED_ENTRIES = 2_000_000;

/**
 * The last `last` tool calls a server's proxy decided (`aip.decision`, upstream `tools/call`),
 * oldest first, with their arguments as the ledger stores them (DLP-redacted where they were).
 * `silas policy replay` composes it (docs/architecture.md §3: commands never open the store).
 */
export function recordedCalls(home: string, server: string, last: number, secretStore: SecretStore | undefined): { calls: RecordedCall[]; scanned: number } {
  const ledger = openLedger(home, { create: false, keys: 'verify', secretStore: cliSecretStore(secretStore) });
  try {
    const found: RecordedCall[] = [];
    let before: number | undefined;
    let scanned = 0;
    while (found.length < last && scanned < MAX_SCANNED_ENTRIES) {
      const page = ledger.audit.list(before, PAGE);
      if (page.entries.length === 0) break;
      for (const entry of page.entries) {
        scanned += 1;
        if (entry.event !== 'aip.decision') continue;
        const data = entry.data as Record<string, unknown>;
        if (data.server !== server || data.direction !== 'upstream' || data.method !== 'tools/call' || typeof data.tool !== 'string') continue;
        const args = data.args !== null && typeof data.args === 'object' && !Array.isArray(data.args) ? (data.args as Record<string, unknown>) : {};
        found.push({ index: entry.index, ts: entry.ts, server, tool: data.tool, args, recorded: String(data.decision) });
        if (found.length >= last) break;
      }
      before = page.entries.at(-1)!.index;
      if (before === 0) break;
    }
    return { calls: found.reverse(), scanned };
  } finally {
    ledger.close();
  }
}
