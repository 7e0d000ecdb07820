import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAuditEvent } from '../../src-shared/audit/define.js';
import { auditCategory, auditEvents, isAuditEventName, legacyNames } from '../../src-shared/audit/events.js';
import { SqliteAuditLog } from './audit-log.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger } from '../testing/ledger.js';

const tempDir = useTempDirs('silas-typed-append-');

describe('the typed append', () => {
  it('refuses malformed data naming the event and the field, and writes nothing', () => {
    const ledger = createTestLedger(tempDir());
    expect(() => ledger.audit.append('runtime.started', { mode: 'headless', pid: 'one' as unknown as number, version: '1' })).toThrow(/audit event "runtime\.started": data\.pid: /);
    expect(() => ledger.audit.append('runtime.stopped', { reason: 'x', extra: true } as { reason: string })).toThrow(/"runtime\.stopped": data\.extra: not a field/);
    expect(() => ledger.audit.append('operator.note', {} as { text: string })).toThrow(/"operator\.note": data\.text: /);
    expect(ledger.audit.head()).toBeNull();
  });

  it('refuses a batch with one malformed item as a whole', () => {
    const ledger = createTestLedger(tempDir());
    expect(() =>
      ledger.audit.appendBatch([
        { event: 'operator.note', data: { text: 'fine' } },
        { event: 'approvals.paused', data: { by: 'someone' } as unknown as Record<string, never> },
      ]),
    ).toThrow(/"approvals\.paused": data\.by/);
    expect(ledger.audit.head()).toBeNull();
  });

  it('validates what is stored: undefined fields are dropped, non-finite numbers refused', () => {
    const ledger = createTestLedger(tempDir());
    const entry = ledger.audit.append('mcp.proxy_stopped', { server: 's', session_id: 'x', reason: 'exit', exit_code: undefined, failed_pending: 0 });
    expect(entry.data).toEqual({ server: 's', session_id: 'x', reason: 'exit', failed_pending: 0 });
    expect(() => ledger.audit.append('mcp.proxy_stopped', { server: 's', session_id: 'x', reason: 'exit', failed_pending: Number.NaN })).toThrow(/data\.failed_pending/);
  });

  it('refuses names outside the catalogue and names reserved for the ledger', () => {
    const ledger = createTestLedger(tempDir());
    // @ts-expect-error a name outside the catalogue does not compile; this checks the run-time refusal
    expect(() => ledger.audit.append('made.up', {})).toThrow(/"made\.up" is not in the catalogue/);
    // @ts-expect-error the old name of a renamed event is not written any more
    expect(() => ledger.audit.append('silas.plan_approved', {})).toThrow(/not in the catalogue/);
    expect(() => ledger.audit.append('audit.checkpoint', {})).toThrow(/reserved for the ledger/);
    expect(() => ledger.audit.append('audit.chain_keyed', { legacy_entries: 1, legacy_head_hash: 'x' })).toThrow(/reserved for the ledger/);
  });
});

describe('entries under old names', () => {
  it('keep verifying and keep their category after the rename', () => {
    const ledger = createTestLedger(tempDir());
    // A writer of an earlier version: its catalogue still had the old name.
    const old = { ...auditEvents, 'silas.plan_approved': defineAuditEvent({ summary: 'old name', category: 'plan_approval', data: z.looseObject({}) }) };
    const oldWriter = new SqliteAuditLog({ repository: new AuditRepository(ledger.db), keys: ledger.keys, catalogue: old });
    oldWriter.append('silas.plan_approved', { approval_id: 'a', work_item_id: 'w', plan_hash: 'h', token_id: 't' });
    ledger.audit.append('silas.plan_approval.approved', { approval_id: 'b', work_item_id: 'w', plan_hash: 'h', token_id: 't', expires_at: 'e', key_fingerprint: 'k' });
    ledger.audit.writeCheckpoint();
    const reader = ledger.reopen();
    expect(reader.verifyChain()).toMatchObject({ valid: true, entries: 3 });
    const events = reader.tail(10).map((e) => e.event);
    expect(events.slice(0, 2)).toEqual(['silas.plan_approved', 'silas.plan_approval.approved']);
    expect(events.slice(0, 2).map(auditCategory)).toEqual(['plan_approval', 'plan_approval']);
  });
});

/** Source files of the runtime that write entries (tests and the test catalogue aside). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') && !d.name.endsWith('-test-support.ts') && !path.includes('/testing/') ? [path] : [];
  });
}

describe('every event the code writes', () => {
  it('is in the catalogue (besides the type check, a scan of the literal names at write sites)', () => {
    const root = join(import.meta.dirname, '..');
    const written = new Set<string>();
    const patterns = [/(?:audit|log)\.append\(\s*'([^']+)'/gi, /\bevent: '([a-z_]+\.[a-z_.]+)'/g, /\.event\(\s*'([^']+)'/g, /\bfinish\(id, '([^']+)'/g, /append\(\w+ \? '([^']+)' : '([^']+)'/g];
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) for (const name of match.slice(1)) if (name) written.add(name);
    }
    expect(written.size).toBeGreaterThan(60);
    // Bench figures and the ledger's own entries are not written through append.
    const notCatalogued = [...written].filter((name) => !isAuditEventName(name) && !name.startsWith('audit.append.'));
    expect(notCatalogued).toEqual([]);
    expect([...written].filter((name) => name in legacyNames)).toEqual([]);
  });
});
