import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import { openHome } from '../../app/home.js';
import { writeLinesAtomic } from '../../home/atomic-lines.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { BUNDLE_KIND, BUNDLE_VERSION, headerLine, itemLine, MEMORY_SCHEMA_VERSION, trailerLine } from '../../silas/memory/bundle-format.js';
import { SqliteMemoryPortability } from '../../silas/memory/portability.js';
import { memoryItem } from '../../silas/memory/testing/memory-bundles.js';
import { report, zipfVocabulary } from '../../testing/bench.js';
import { openDatabase } from '../database.js';
import { sqliteConnection } from '../transaction.js';
import { createHash } from 'node:crypto';

// Memory portability throughput (docs/silas/memory-portability.md "Figures"): `silas memory
// import` and `export` at 10k and 100k memories, in rows/s and MB/s of bundle, each beside floors
// measured in the same run on the same rows: for the import, a bare INSERT of the rows into the
// same table (its FTS triggers included) with nothing parsed, checked or sealed; for the export, a
// bare SELECT of every row, and JSON.stringify of those rows. Real files in WAL mode with the
// runtime's pragmas, on homes opened as the CLI opens them.

let seed = 0x6d62;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const { word } = zipfVocabulary(['the', 'we', 'a', 'to', 'and', 'of', 'is', 'it', 'about', 'what'], random);
const sentence = (words: number) => Array.from({ length: words }, word).join(' ');

function items(n: number): MemoryItem[] {
  return Array.from({ length: n }, (_, i) =>
    memoryItem(`bench-${i.toString(36).padStart(8, '0')}`, {
      content: sentence(30),
      reingestion_tier: i % 4 === 0 ? 'active' : 'low_reingestion',
      source_kind: i % 4 === 0 ? 'memory_op' : 'conversation_raw',
      taint: (['owner', 'auth', 'external'] as const)[i % 3],
      token_count: 45,
      semantic_tags: i % 10 === 0 ? ['behavior:response/include_sources'] : [],
      session_id: `session-${i % 50}`,
      access_count: i % 7,
    }),
  );
}

/** The bundle `silas memory export` would write for these items, streamed to `file`; its size in bytes. */
function writeBundle(file: string, all: readonly MemoryItem[]): number {
  const hash = createHash('sha256');
  function* lines(): Generator<string> {
    const header = headerLine({ kind: BUNDLE_KIND, bundle_version: BUNDLE_VERSION, schema_version: MEMORY_SCHEMA_VERSION, exported_at: new Date().toISOString(), count: all.length, include_raw: true, scope: null, since: null, embedding: 'omitted' });
    for (const line of [header, ...all.map(itemLine)]) {
      hash.update(`${line}\n`, 'utf8');
      yield line;
    }
    yield trailerLine({ end: true, count: all.length, sha256: hash.digest('hex') });
  }
  return writeLinesAtomic(file, lines(), 0o600);
}

const seconds = (start: number) => (performance.now() - start) / 1000;
const mb = (bytes: number) => bytes / 1024 / 1024;

const dir = mkdtempSync(join(tmpdir(), 'silas-bench-bundle-'));
try {
  const secretStore = new MemorySecretStore();
  for (const [label, size] of [['10k', 10_000], ['100k', 100_000]] as const) {
    const rows = items(size);
    const bundle = join(dir, `in-${label}.jsonl`);
    const bytes = writeBundle(bundle, rows);

    // Import floor: the same rows straight into the table, one transaction, no parsing, checks or seals.
    const bare = sqliteConnection(openDatabase(join(dir, `floor-${label}.db`), { create: true }).db);
    const insert = bare.prepare(`INSERT INTO silas_memory_items (memory_id, scope_id, content, memory_type, reingestion_tier, trust_level, taint, source_kind, token_count, session_id,
      semantic_tags, entity_refs, causal_refs, temporal_prev, temporal_next, valid_from, valid_until, access_count, last_accessed, created_at, updated_at)
      VALUES (@memory_id, @scope_id, @content, @memory_type, @reingestion_tier, @trust_level, @taint, @source_kind, @token_count, @session_id,
      @semantic_tags, @entity_refs, @causal_refs, @temporal_prev, @temporal_next, @valid_from, @valid_until, @access_count, @last_accessed, @created_at, @updated_at)`);
    const prepared = rows.map((r) => ({ ...r, semantic_tags: JSON.stringify(r.semantic_tags), entity_refs: JSON.stringify(r.entity_refs), causal_refs: JSON.stringify(r.causal_refs) }));
    let start = performance.now();
    bare.transaction(() => {
      for (const row of prepared) insert.run(row);
    })();
    const insertFloor = size / seconds(start);
    report(`memory_bundle.floor.insert_rows.${label}`, 'rows/s', insertFloor, { role: 'floor', memories: size });

    const ledger = openHome(join(dir, `home-${label}`), { create: true, keys: 'signer', secretStore });
    try {
      const portability = new SqliteMemoryPortability({ db: ledger.db, seals: ledger.seals, audit: ledger.audit });
      start = performance.now();
      portability.importBundle(bundle, 'replace');
      const importTime = seconds(start);
      report(`memory_bundle.import.replace.${label}`, 'rows/s', size / importTime, { mb_per_s: Number((mb(bytes) / importTime).toFixed(2)), bundle_mb: Number(mb(bytes).toFixed(1)), memories: size, ratio_to_floor: Number((size / importTime / insertFloor).toFixed(3)) });

      // Export floors: every row stepped through, then the same rows as JSON.
      const select = bare.prepare('SELECT * FROM silas_memory_items ORDER BY seq');
      start = performance.now();
      let stepped = 0;
      for (const row of select.iterate()) stepped += row ? 1 : 0;
      const selectFloor = stepped / seconds(start);
      report(`memory_bundle.floor.select_rows.${label}`, 'rows/s', selectFloor, { role: 'floor', memories: stepped });
      start = performance.now();
      let jsonBytes = 0;
      for (const row of select.iterate()) jsonBytes += JSON.stringify(row).length + 1;
      const stringifyTime = seconds(start);
      report(`memory_bundle.floor.select_and_stringify_rows.${label}`, 'rows/s', size / stringifyTime, { role: 'floor', mb_per_s: Number((mb(jsonBytes) / stringifyTime).toFixed(2)), memories: size });

      const out = join(dir, `out-${label}.jsonl`);
      start = performance.now();
      await portability.exportBundle({}, (lines) => Promise.resolve(void writeLinesAtomic(out, lines, 0o600)), out);
      const exportTime = seconds(start);
      const outBytes = statSync(out).size;
      report(`memory_bundle.export.${label}`, 'rows/s', size / exportTime, {
        mb_per_s: Number((mb(outBytes) / exportTime).toFixed(2)),
        bundle_mb: Number(mb(outBytes).toFixed(1)),
        memories: size,
        ratio_to_select_floor: Number((size / exportTime / selectFloor).toFixed(3)),
        ratio_to_stringify_floor: Number((size / exportTime / (size / stringifyTime)).toFixed(3)),
      });
    } finally {
      ledger.close();
      bare.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
