import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { medianUs, report } from '../../testing/bench.js';
import { memorySeals } from '../../testing/seals.js';
import { openDatabase } from '../database.js';
import { sqliteConnection } from '../transaction.js';
import { IlpCompositionRepository } from './ilp-compositions.js';

/*
 * What the composition inspector's first render reads (docs/ilp.md "Figures"): the newest page of
 * 50 compositions with their seals checked, and one composition in full, at 1,000 / 10,000 /
 * 100,000 stored — beside the floor of the same page read as plain rows without seals. A real file
 * with the runtime's pragmas. Target: the first page in well under one frame (16 ms) at 10,000.
 */

const PAGE = 50;
const { seals } = memorySeals();
const sealer = { seal: (id: string, f: readonly unknown[]) => seals.seal('ledger', 'ilp-composition', id, f), check: (id: string, f: readonly unknown[], s: string | null) => seals.check('ledger', 'ilp-composition', id, f, s).ok };
const hop = (i: number, depth: number) => ({ id: `h${i}-${depth}`, parent: depth === 0 ? null : `h${i}-0`, agent: depth === 0 ? 'meta-agent' : 'finance-agent', kind: depth === 0 ? ('meta' as const) : ('specialist' as const), domain: 'finance', method: 'THINK', path: '/insight', depth, cost_usd: 0.001, confidence: 0.86, status: 200, constitutional_status: 'PASSED' as const, principle: null, severity: null, slices: ['budgeting-basics'], request_text: `THINK /insight ILP/1.0\n\n${'{"query":"x"}'.padEnd(300, ' ')}`, response_text: `ILP/1.0 200 OK\n\n${'{"answer":"y"}'.padEnd(1200, ' ')}`, duration_ms: 3 });

for (const size of [1_000, 10_000, 100_000]) {
  const dir = mkdtempSync(join(tmpdir(), 'ilp-bench-'));
  const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
  const repo = new IlpCompositionRepository(db, sealer);
  const conn = sqliteConnection(db);
  conn.transaction(() => {
    for (let i = 0; i < size; i += 1) {
      repo.insert({ id: `c${i}`, query: `How can I stabilize my spending, case ${i}?`, status: 200, constitutional_status: 'PASSED', started_at: new Date(1_700_000_000_000 + i).toISOString(), cost_usd: 0.004, hops: 3, max_depth: 1, replay_of: null, answer: 'Keep a buffer.', detail: { hop_list: [hop(i, 0), hop(i, 1), hop(i, 1)], influencers: [], decision_path: [] } });
    }
  })();
  const page = medianUs(() => repo.list(undefined, PAGE), 200);
  const one = medianUs(() => repo.get(`c${size - 1}`), 200);
  const floorStmt = conn.prepare('SELECT id, query, status, started_at FROM ilp_compositions ORDER BY seq DESC LIMIT ?');
  const floor = medianUs(() => floorStmt.all(PAGE), 200);
  report(`ilp.inspector.first_page_${size}`, 'ms', page / 1000, { stored: size, page: PAGE, floor_plain_rows_ms: Number((floor / 1000).toFixed(4)), one_composition_ms: Number((one / 1000).toFixed(4)), target_ms: 16 });
  conn.close();
  rmSync(dir, { recursive: true, force: true });
}
