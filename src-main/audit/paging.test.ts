import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { calls } from '../../src-shared/contract/calls.js';
import { ListedAuditEntry, type AuditEntry } from '../../src-shared/schemas/audit.js';
import { JsonObject } from '../../src-shared/schemas/json.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { createTestLedger } from '../testing/ledger.js';
import { testAuditEvents } from '../testing/audit-events.js';
import { useTempDirs } from '../testing/temp.js';
import { SqliteAuditLog } from './audit-log.js';
import { CSV_HEADER, ExportOutputClosed, exportLines, toCsvRow, toJsonLine, writeLines } from './export.js';

const tempDir = useTempDirs('silas-paging-');

function ledgerWith(notes: number) {
  const ledger = createTestLedger(tempDir());
  onTestFinished(() => {
    ledger.db.close();
  });
  let seq = 0;
  const append = (n: number) => {
    for (let i = 0; i < n; i += 1) ledger.audit.append('test.entry', { seq: seq++ });
  };
  append(notes);
  return { ledger, append };
}

describe('audit.list pages by key, without counting', () => {
  it('gives every entry once, newest first, while entries are appended between pages', () => {
    const { ledger, append } = ledgerWith(95);
    const count = vi.spyOn(AuditRepository.prototype, 'count');
    onTestFinished(() => count.mockRestore());

    const first = ledger.audit.list(undefined, 10);
    const seen = [...first.entries.map((e) => e.index)];
    let before = first.entries.at(-1)?.index;
    while (before !== undefined && before > 0) {
      append(3); // live appends land above the first page; paging down by key never sees them twice
      const page = ledger.audit.list(before, 10);
      seen.push(...page.entries.map((e) => e.index));
      before = page.entries.at(-1)?.index;
    }

    expect(seen).toEqual(Array.from({ length: first.head!.index + 1 }, (_, i) => first.head!.index - i));
    expect(count).not.toHaveBeenCalled();
  });

  it('counts the chain from its head, equal to the rows it holds', () => {
    const { ledger, append } = ledgerWith(0);
    expect(ledger.audit.list(undefined, 5)).toEqual({ entries: [], total: 0, head: null });
    append(42);
    ledger.audit.writeCheckpoint();
    append(7);
    const page = ledger.audit.list(undefined, 5);
    const rows = (ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_entries').get() as { n: number }).n;
    expect(page.total).toBe(rows);
    expect(page.total).toBe(page.head!.index + 1);
    expect(page.entries).toHaveLength(5);
  });
});

describe('since() reads in keyset pages', () => {
  it('yields each entry up to the head at the start once, in order, across pages and concurrent appends', () => {
    const { ledger, append } = ledgerWith(25);
    const head = ledger.audit.head()!.index;
    const seen: number[] = [];
    for (const entry of ledger.audit.since(undefined, 4)) {
      seen.push(entry.index);
      // Appending while the reader is between rows would fail if a statement were still open on
      // this connection; entries appended now are after the head the read started from.
      if (entry.index % 5 === 0) append(1);
    }
    expect(seen).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
  });

  it('keeps only entries at or after the given time', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const ledger = createTestLedger(tempDir());
    onTestFinished(() => {
    ledger.db.close();
  });
    const timed = new SqliteAuditLog({ repository: new AuditRepository(ledger.db), keys: ledger.keys, catalogue: testAuditEvents, now: () => new Date((now += 1000)) });
    for (let i = 0; i < 12; i += 1) timed.append('test.entry', { seq: i });
    const cut = '2026-01-01T00:00:06.000Z';
    const expected = [...timed.since()].filter((e) => e.ts >= cut).map((e) => e.index);
    expect(expected.length).toBeGreaterThan(3);
    expect([...timed.since(cut, 2)].map((e) => e.index)).toEqual(expected);
  });

  it('pages hold the stored rows column for column (read raw, made into rows by the repository)', () => {
    const { ledger } = ledgerWith(12);
    const stored = ledger.db.prepare('SELECT * FROM audit_entries ORDER BY idx').all();
    const repo = new AuditRepository(ledger.db);
    expect(repo.pageAfter(-1, 11, undefined, 100)).toStrictEqual(stored);
    expect(repo.pageAfter(2, 6, undefined, 3)).toStrictEqual(stored.slice(3, 6));
    const ts = (stored[5] as { ts: string }).ts;
    expect(repo.pageAfter(-1, 11, ts, 100)).toStrictEqual(stored.filter((row) => (row as { ts: string }).ts >= ts));
  });
});

describe('export lines', () => {
  it('put the chain fields after the data, as a spread of both would, whatever keys the data has', () => {
    const chain = { index: 7, id: 'e7', ts: '2026-01-01T00:00:00.000Z', event: 'test.entry', prevHash: '0'.repeat(64), hash: 'a'.repeat(64) };
    for (const text of ['{}', '{"b":1,"a":[1,{"c":null}]}', '{"10":1,"2":2,"x":3}', '{"hash":"forged","z":1,"timestamp":"then"}', '{"a":1,"__proto__":{"polluted":true},"z":2}']) {
      const data = JSON.parse(text) as AuditEntry['data'];
      const spread = JSON.stringify({ ...data, timestamp: chain.ts, event: chain.event, audit_index: chain.index, audit_id: chain.id, prev_hash: chain.prevHash, hash: chain.hash });
      expect(toJsonLine({ ...chain, data })).toBe(spread);
    }
    expect(toJsonLine({ ...chain, data: JSON.parse('{"__proto__":{"p":1}}') as AuditEntry['data'] })).toContain('"__proto__":{"p":1}');
  });

  it('are the per-entry formats, in order, with the CSV header first', () => {
    const { ledger } = ledgerWith(3);
    const entries = [...ledger.audit.since()];
    expect([...exportLines(entries, 'csv')]).toEqual([CSV_HEADER, ...entries.map(toCsvRow)]);
    expect([...exportLines(entries, 'jsonl')]).toEqual(entries.map(toJsonLine));
  });
});

/** A sink that accepts one chunk per tick, like a pipe read slowly. */
function slowSink(highWaterMark: number) {
  const received: string[] = [];
  let receivedChars = 0;
  let maxBuffered = 0;
  const sink = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      received.push(chunk);
      receivedChars += chunk.length;
      setTimeout(done, 1);
    },
  });
  const track = setInterval(() => (maxBuffered = Math.max(maxBuffered, sink.writableLength)), 0);
  return { sink, received, receivedChars: () => receivedChars, maxBuffered: () => maxBuffered, stop: () => clearInterval(track) };
}

describe('writeLines', () => {
  it('waits for the stream to drain, so no more than a chunk sits above its buffer', async () => {
    const { sink, received, receivedChars, maxBuffered, stop } = slowSink(16 * 1024);
    const line = 'x'.repeat(500);
    let produced = 0;
    let maxAhead = 0;
    function* lines() {
      for (let i = 0; i < 2000; i += 1) {
        produced += 1;
        maxAhead = Math.max(maxAhead, produced * 501 - receivedChars());
        yield line;
      }
    }
    const written = await writeLines(lines(), sink);
    stop();
    expect(written).toBe(2000);
    expect(received.join('')).toBe(`${line}\n`.repeat(2000));
    // Without waiting for 'drain' the whole megabyte would be queued at once.
    expect(maxBuffered()).toBeLessThan(16 * 1024 + 70 * 1024);
    expect(maxAhead).toBeLessThan(16 * 1024 + 140 * 1024);
  });

  it('stops with a clear error when the reader goes away (EPIPE)', async () => {
    let calls = 0;
    const sink = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        calls += 1;
        if (calls === 2) done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        else setTimeout(done, 1);
      },
    });
    function* endless() {
      for (;;) yield 'y'.repeat(1000);
    }
    const failure = await writeLines(endless(), sink).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ExportOutputClosed);
    expect((failure as Error).message).toMatch(/^the reader closed the output \(EPIPE\) after \d+ line\(s\); the export is incomplete/);
  });
});

describe('the contract check of listed rows', () => {
  const samples: unknown[] = [
    { a: 1, b: 'x', c: [true, null, { d: [1.5, -0] }] },
    {},
    { n: Number.NaN },
    { n: Number.POSITIVE_INFINITY },
    { nested: { deep: [Number.NEGATIVE_INFINITY] } },
    { when: new Date(0) },
    { f: () => 1 },
    { u: undefined },
    { big: 1n },
    [1, 2],
    Object.assign(Object.create(null) as object, { plain: 'yes' }),
  ];

  it('accepts and refuses exactly what the JsonObject schema does', () => {
    const base = { index: 0, id: 'e', ts: '2026-01-01T00:00:00.000Z', event: 'test.entry', prevHash: '0'.repeat(64), hash: 'a'.repeat(64) };
    for (const data of samples) {
      expect([data, ListedAuditEntry.safeParse({ ...base, data }).success]).toEqual([data, JsonObject.safeParse(data).success]);
    }
  });

  it('passes the rows of a page through as they are', () => {
    const { ledger } = ledgerWith(3);
    const page = ledger.audit.list(undefined, 3);
    const parsed = calls['audit.list'].result.parse(page);
    expect(parsed).toEqual(page);
    expect(parsed.entries[0]!.data).toBe(page.entries[0]!.data);
  });
});
