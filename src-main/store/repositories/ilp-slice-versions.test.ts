import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import { sqliteConnection } from '../transaction.js';
import { IlpSliceVersionRepository, type NewSliceVersion, type SliceVersionSealer } from './ilp-slice-versions.js';

/*
 * The slice registry's store (migration 024): versions sealed over every column, the text by its
 * SHA-256; one deployed version per slice whoever writes; slice ids that are names, never paths.
 */

const tempDir = useTempDirs('silas-slice-versions-');

function open() {
  const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
  const { seals, refusals } = memorySeals();
  const sealer: SliceVersionSealer = {
    seal: (id, fields) => seals.seal('ledger', 'ilp-slice-version', id, fields),
    check: (id, fields, seal) => seals.check('ledger', 'ilp-slice-version', id, fields, seal).ok,
  };
  return { db, repo: new IlpSliceVersionRepository(db, sealer), refusals, sql: sqliteConnection(db) };
}

function version(fields: Partial<NewSliceVersion> = {}): NewSliceVersion {
  return { id: 'v1', slice_id: 'learned-x', version: 1, text: 'metadata: {}\n', kind: 'created', status: 'proposed', concepts: ['x'], pattern_json: '{"key":"x"}', confidence: 0.8, constitutional_score: 1, rationale: 'why', reasons: [], created_at: '2026-03-01T00:00:00.000Z', decided_at: null, ...fields };
}

describe('IlpSliceVersionRepository', () => {
  it('reads back what it wrote as trusted, and moves a trusted version on, sealed again', () => {
    const { repo } = open();
    repo.insert(version());
    expect(repo.byId('v1')).toMatchObject({ slice_id: 'learned-x', version: 1, status: 'proposed', concepts: ['x'], trusted: true });
    expect(repo.nextVersion('learned-x')).toBe(2);
    expect(repo.setStatus('v1', 'deployed', '2026-03-02T00:00:00.000Z')).toMatchObject({ status: 'deployed', trusted: true });
    expect(repo.byId('v1')).toMatchObject({ status: 'deployed', decided_at: '2026-03-02T00:00:00.000Z', trusted: true });
  });

  it('reads a row changed in the database as not trusted, reports it, and never seals it again', () => {
    const { repo, sql, refusals } = open();
    repo.insert(version());
    repo.insert(version({ id: 'v2', version: 2 }));
    sql.prepare("UPDATE ilp_slice_versions SET status = 'deployed' WHERE id = 'v1'").run();
    sql.prepare("UPDATE ilp_slice_versions SET text = 'metadata: {id: evil}\n' WHERE id = 'v2'").run();
    expect(repo.byId('v1')).toMatchObject({ trusted: false });
    expect(repo.byId('v2')).toMatchObject({ trusted: false });
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'ilp-slice-version', id: 'v1', reason: 'mismatch' }));
    expect(() => repo.setStatus('v1', 'superseded', null)).toThrow(/not a trusted version/);
    repo.demoteUntrusted('v1');
    expect(repo.byId('v1')).toMatchObject({ status: 'superseded', trusted: false });
  });

  it('holds one deployed version per slice, whoever writes', () => {
    const { repo, sql } = open();
    repo.insert(version({ status: 'deployed' }));
    expect(() => repo.insert(version({ id: 'v2', version: 2, status: 'deployed' }))).toThrow(/UNIQUE/);
    expect(() => sql.prepare("INSERT INTO ilp_slice_versions SELECT NULL, 'v3', slice_id, 3, text, sha256, kind, 'deployed', concepts_json, pattern_json, confidence, constitutional_score, rationale, reasons_json, created_at, decided_at, seal FROM ilp_slice_versions WHERE id = 'v1'").run()).toThrow(/UNIQUE/);
    repo.insert(version({ id: 'v4', slice_id: 'learned-y', status: 'deployed' }));
    expect(repo.withStatus('deployed').map((v) => v.slice_id)).toEqual(['learned-x', 'learned-y']);
  });

  it('refuses a slice id that is a path, and a version number taken', () => {
    const { repo } = open();
    for (const bad of ['../../etc', 'a/b', 'Upper', '.hidden', 'a..b', '']) expect(() => repo.insert(version({ id: `bad-${bad}`, slice_id: bad })), bad).toThrow(/CHECK constraint/);
    repo.insert(version());
    expect(() => repo.insert(version({ id: 'again' }))).toThrow(/UNIQUE/);
  });
});
