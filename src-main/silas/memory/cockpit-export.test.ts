import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome, type Ledger } from '../../app/home.js';
import { writeLinesAtomic } from '../../home/atomic-lines.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { openMemoryReader } from '../../store/repositories/memory-bundle.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { useTempDirs } from '../../testing/temp.js';
import { EXPORT_PAGE_CHARS, MemoryExports } from './cockpit-export.js';
import { memorySealer } from './memory-seals.js';
import { SqliteMemoryPortability } from './portability.js';
import { bundleText, everyKindOfMemory, memoryItem } from './testing/memory-bundles.js';

const tempDir = useTempDirs('silas-memory-export-');
const store = new MemorySecretStore();

function home() {
  const dir = tempDir();
  const ledger = openHome(join(dir, 'home'), { create: true, keys: 'signer', secretStore: store });
  const clock = { now: new Date('2026-03-01T09:00:00.000Z') };
  const now = () => clock.now;
  const portability = new SqliteMemoryPortability({ db: ledger.db, seals: ledger.seals, audit: ledger.audit, now });
  const exports = new MemoryExports({ openReader: () => openMemoryReader(ledger.db.name), seals: ledger.seals, audit: ledger.audit, now });
  return { dir, ledger, clock, portability, exports, memory: new MemoryRepository(ledger.db, memorySealer(ledger.seals)) };
}

function fill(portability: SqliteMemoryPortability, dir: string, text: string) {
  const file = join(dir, `in-${Math.random().toString(36).slice(2)}.jsonl`);
  writeLinesAtomic(file, text.trimEnd().split('\n'), 0o600);
  portability.importBundle(file, 'replace');
}

const exported = (ledger: Ledger) => ledger.audit.tail(200).filter((e) => e.event === 'silas.memory.exported');

/** Long memories, so the bundle takes several pages. */
const longMemories = (length = 40) => Array.from({ length }, (_, i) => memoryItem(`long-${i}`, { content: `${'é'.repeat(3_000)} 😀 ${'"quoted" '.repeat(300)} ${i}` }));

describe('MemoryExports (the Memory page: Export memory)', () => {
  it('hands out the bundle the CLI writes, in bounded pages, and records the export once, after the last page', async () => {
    const h = home();
    fill(h.portability, h.dir, bundleText([...everyKindOfMemory(), ...longMemories()]));
    const cli = join(h.dir, 'cli.jsonl');
    await h.portability.exportBundle({}, (lines) => Promise.resolve(void writeLinesAtomic(cli, lines, 0o600)), cli);

    let page = await h.exports.page({ cursor: null });
    const pages = [page];
    while (page.next !== null) {
      expect(exported(h.ledger)).toHaveLength(1); // the CLI's only, until the last page
      page = await h.exports.page({ cursor: page.next });
      pages.push(page);
    }
    expect(pages.length).toBeGreaterThan(1);
    for (const p of pages) expect(p.text.length).toBeLessThanOrEqual(EXPORT_PAGE_CHARS);
    const text = pages.map((p) => p.text).join('');
    expect(text).toBe(readFileSync(cli, 'utf8'));
    expect(page.done).toMatchObject({ count: pages[0]!.count, bytes: Buffer.byteLength(text) });
    expect(exported(h.ledger)[1]!.data).toMatchObject({ count: pages[0]!.count, sha256: page.done!.sha256, include_raw: true, scope: null, destination: 'the cockpit (download)' });
  });

  it('reads one snapshot for every page: a memory written between pages is not in the bundle, which imports whole', async () => {
    const h = home();
    fill(h.portability, h.dir, bundleText(longMemories()));
    const first = await h.exports.page({ cursor: null });
    h.memory.store('owner', { content: 'written while the export runs', source_kind: 'memory_op', taint: 'owner', token_count: 4, memory_type: 'fact' });
    let page = first;
    let text = first.text;
    while (page.next !== null) {
      page = await h.exports.page({ cursor: page.next });
      text += page.text;
    }
    expect(text).not.toContain('written while the export runs');
    expect(page.done!.count).toBe(40);
    const other = home();
    fill(other.portability, other.dir, text);
    expect(other.memory.count('owner', 'active')).toBe(40);
  });

  it('leaves out the raw lane when asked', async () => {
    const h = home();
    fill(h.portability, h.dir, bundleText([memoryItem('a'), memoryItem('raw', { reingestion_tier: 'low_reingestion', source_kind: 'conversation_raw' })]));
    const page = await h.exports.page({ cursor: null, includeRaw: false });
    expect(page.next).toBeNull();
    expect(page.text).toContain('"memory_id":"a"');
    expect(page.text).not.toContain('"memory_id":"raw"');
    expect(JSON.parse(page.text.split('\n')[0]!)).toMatchObject({ include_raw: false, count: 1 });
  });

  it('refuses a page asked twice, and drops an export nobody continues, recording nothing', async () => {
    const h = home();
    fill(h.portability, h.dir, bundleText(longMemories(100)));
    const first = await h.exports.page({ cursor: null });
    const second = await h.exports.page({ cursor: first.next });
    await expect(h.exports.page({ cursor: first.next })).rejects.toThrow(/cursor: this page was already read/);
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    await expect(h.exports.page({ cursor: second.next })).rejects.toThrow(/no memory export .* in progress: .*dropped after 60 s without a call; start it again/);
    await Promise.resolve();
    expect(exported(h.ledger)).toHaveLength(0);
  });
});
