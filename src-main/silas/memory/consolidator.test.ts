import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/database.js';
import { MemoryConsolidationRepository } from '../../store/repositories/memory-consolidation.js';
import { MemoryPromotionRepository } from '../../store/repositories/memory-promotions.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { sqliteConnection } from '../../store/transaction.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import { BehaviorPreferences, type BehaviorSignal } from './behavior-preferences.js';
import { approvalSignals } from './approval-signals.js';
import { MemoryConsolidator } from './consolidator.js';
import { memorySealer } from './memory-seals.js';

const tempDir = useTempDirs('silas-consolidator-');
const NOW = new Date('2026-12-07T12:00:00.000Z');

function setup(signals: BehaviorSignal[] = []) {
  const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
  const sealer = memorySealer(memorySeals().seals);
  let at = NOW;
  const memory = new MemoryRepository(db, sealer, { now: () => at });
  const promotions = new MemoryPromotionRepository(db, () => NOW);
  const audit = { entries: [] as { type: string; data: Record<string, unknown> }[], append(type: string, data: Record<string, unknown>) { this.entries.push({ type, data }); } };
  let notified = 0;
  let changed = 0;
  const preferences = new BehaviorPreferences({ signals: () => signals, memory, promotions, counter: { count: (t) => t.length } });
  const consolidator = new MemoryConsolidator({
    store: new MemoryConsolidationRepository(db, sealer, () => NOW),
    promotions,
    semantic: { notify: () => void notified++, status: () => ({ pending: 0 }) },
    preferences,
    audit,
    onPromotionsChanged: () => void changed++,
    now: () => NOW,
    config: { pageSize: 3 },
  });
  const store = (content: string, when = NOW, extra: Record<string, unknown> = {}, options = {}) => {
    at = when;
    const id = memory.store('owner', { content, taint: 'owner', source_kind: 'memory_op', token_count: 3, ...extra }, options);
    at = NOW;
    return id;
  };
  const sql = (text: string, ...params: unknown[]) => sqliteConnection(db).prepare(text).run(...params);
  return { memory, promotions, consolidator, audit, store, sql, counts: () => ({ notified, changed }) };
}

describe('MemoryConsolidator.runOnce (§4.2.2, §6.4)', () => {
  it('merges duplicates, archives stale working memory into the raw lane, asks to verify what is recalled often, and counts it all', async () => {
    const { memory, promotions, consolidator, audit, store, sql, counts } = setup();
    const first = store('prefers tabs', new Date('2026-12-01T00:00:00Z'), { session_id: 'scope-a' });
    const copy = store('prefers tabs', new Date('2026-12-02T00:00:00Z'), { session_id: 'scope-b' });
    sql('UPDATE silas_memory_items SET access_count = 2 WHERE memory_id = ?', copy);
    const stale = store('old trip to Porto', new Date('2026-01-01T00:00:00Z'));
    const often = store('uses neovim', new Date('2026-11-01T00:00:00Z'));
    sql('UPDATE silas_memory_items SET access_count = 6, last_accessed = ? WHERE memory_id = ?', NOW.toISOString(), often);
    const otherScope = memory.store('scope-x', { content: 'prefers tabs', taint: 'owner', source_kind: 'memory_op', token_count: 3 });

    const stats = await consolidator.runOnce();
    expect(stats).toMatchObject({ scanned: 5, merged: 1, pruned: 1, promoted: 1 });
    expect(memory.get('owner', copy)).toBeNull();
    expect(memory.get('owner', first)).toMatchObject({ access_count: 2 });
    expect(memory.get('scope-x', otherScope)).not.toBeNull();
    expect(memory.get('owner', stale)).toMatchObject({ reingestion_tier: 'low_reingestion', taint: 'owner' });
    expect(promotions.openFor('owner', often)).toMatchObject({ requestedBy: 'the consolidator (recalled often)' });
    expect(audit.entries.at(-1)).toEqual({ type: 'silas.memory.consolidated', data: expect.objectContaining({ merged: 1, pruned: 1, promoted: 1 }) });
    expect(counts()).toEqual({ notified: 1, changed: 1 });

    // Asked once: a second run does not ask again, nor after the owner declined.
    promotions.close(promotions.openFor('owner', often)!.id, 'declined');
    expect(await consolidator.runOnce()).toMatchObject({ promoted: 0, merged: 0, pruned: 0 });
  });

  it('never touches verified or constitutional memory, nor a row whose seal does not hold', async () => {
    const { memory, consolidator, store, sql } = setup();
    const old = new Date('2025-01-01T00:00:00Z');
    const rule = store('never share keys', old, { trust_level: 'constitutional' }, { constitution: true });
    const fact = store('lives in Lyon', old, { trust_level: 'verified' }, { ownerConfirmed: true });
    store('never share keys', old, { trust_level: 'verified' }, { ownerConfirmed: true });
    const planted = store('planted', old);
    sql("UPDATE silas_memory_items SET taint = 'external' WHERE memory_id = ?", planted);
    sql("UPDATE silas_memory_items SET content = 'planted!' WHERE memory_id = ?", planted);
    const stats = await consolidator.runOnce();
    expect(stats).toMatchObject({ merged: 0, pruned: 0, promoted: 0 });
    expect(memory.get('owner', rule)).toMatchObject({ trust_level: 'constitutional', reingestion_tier: 'active' });
    expect(memory.get('owner', fact)).toMatchObject({ trust_level: 'verified', reingestion_tier: 'active' });
    // Not archived, so not re-sealed: it still reads as untrusted.
    expect(memory.get('owner', planted)).toMatchObject({ reingestion_tier: 'active', taint: 'external' });
  });
});

describe('behavioural preferences (§6.6)', () => {
  const approved = (server: string, tool: string) => ({ index: 0, id: 'x', ts: 't', event: 'approvals.approved', data: { server, tool }, prevHash: 'a'.repeat(64), hash: 'b'.repeat(64) });
  const denied = (server: string, tool: string) => ({ ...approved(server, tool), event: 'approvals.denied' });

  it('three approvals of one tool become a working preference with a card asking to make it a default; mixed outcomes none', async () => {
    const signals = approvalSignals([approved('fs', 'read_file'), approved('fs', 'read_file'), approved('fs', 'read_file'), approved('fs', 'write_file'), denied('fs', 'write_file'), denied('fs', 'write_file')] as never);
    const { memory, promotions, consolidator } = setup(signals);
    expect((await consolidator.runOnce()).preferences).toBe(1);
    const [preference] = memory.list('owner', { limit: 10, types: ['preference'] });
    expect(preference).toMatchObject({ content: 'You usually approve read_file calls of the fs server (3 times in a row).', trust_level: 'working', taint: 'owner', semantic_tags: ['behavior:approval/fs/read_file'] });
    expect(promotions.openFor('owner', preference!.memory_id)).toMatchObject({ reason: expect.stringContaining('Make this a default?') });
    // Idempotent: the same pattern again writes nothing new.
    expect((await consolidator.runOnce()).preferences).toBe(0);
    expect(memory.list('owner', { limit: 10, types: ['preference'] })).toHaveLength(1);
  });
});
