import { describe, expect, it } from 'vitest';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { inImmediateTransaction } from '../transaction.js';
import { AuditRepository } from './audit-repository.js';

// The queries moved here from services (docs/architecture.md §3); the services' own tests cover
// how they are used, these pin what each query returns.
const tempDir = useTempDirs();

describe('AuditRepository queries for other services', () => {
  it('says which ids are committed: an entry of a rolled-back transaction is not', () => {
    const ledger = createTestLedger(tempDir());
    const repo = new AuditRepository(ledger.db);
    const kept = ledger.audit.append('mcp.tool_change_approved', { server: 's', tool: 't', previous_hash: 'a', hash: 'b' });
    let rolledBack = '';
    expect(() =>
      inImmediateTransaction(ledger.db, () => {
        rolledBack = ledger.audit.append('mcp.tool_change_approved', { server: 's', tool: 't', previous_hash: 'b', hash: 'c' }).id;
        throw new Error('refused after the entry');
      }),
    ).toThrow('refused after the entry');
    expect(repo.hasEntry(kept.id)).toBe(true);
    expect(repo.hasEntry(rolledBack)).toBe(false);
  });

  it('finds the newest start per server and a server’s entries of given events, newest first', () => {
    const ledger = createTestLedger(tempDir());
    const repo = new AuditRepository(ledger.db);
    const start = (server: string) => ledger.audit.append('mcp.proxy_started', { server, session_id: 's', command: 'node', args: [], policy_name: 'p', policy_hash: 'a'.repeat(64) });
    start('files');
    const second = start('files');
    const other = start('other');
    const decision = ledger.audit.append('aip.decision', { server: 'files', tool: 'read_file', decision: 'ALLOW', direction: 'upstream', policy_mode: 'enforce', violation: false });
    expect(repo.latestStartPerServer().sort((a, b) => a.idx - b.idx)).toEqual([
      { server: 'files', idx: second.index },
      { server: 'other', idx: other.index },
    ]);
    expect(repo.serverEntries('files', ['mcp.proxy_started', 'aip.decision'], 2).map((r) => r.idx)).toEqual([decision.index, second.index]);
    expect(repo.serverEntries('files', ['aip.decision'], 20).map((r) => r.id)).toEqual([decision.id]);
    expect(repo.serverEntries('other', ['aip.decision'], 20)).toEqual([]);
    expect(repo.serverEntries('files', [], 20)).toEqual([]);
  });

  it('records the chain state once keyed and reads it back', () => {
    const ledger = createTestLedger(tempDir());
    const repo = new AuditRepository(ledger.db);
    repo.recordChainState('key-2', 7, '2026-01-01T00:00:00.000Z');
    expect(repo.chainState()).toEqual({ keyId: 'key-2', keyedFrom: 7 });
  });
});
