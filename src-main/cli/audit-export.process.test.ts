import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OsKeyring } from '../keys/secret-store.js';
import { openHome } from '../app/home.js';
import { runSilas, runSilasChild, runSilasProcess, spawnSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';

// Real processes, real OS keyring (scripts/with-keyring.sh), real pipes.
const tempDir = useTempDirs('silas-export-process-');

const ENTRIES = 200_000;
/**
 * Peak RSS the exporter may reach: about 120 MB of Node and tsx before the first row, plus what
 * the garbage collector lets pile up between collections (60-100 MB, whatever the ledger size).
 * Buffering the export instead (the 200k-entry ledger is about 65 MB of lines) peaks above 600 MB.
 */
const PEAK_RSS_LIMIT_KB = 320 * 1024;

/** A home whose ledger holds `entries` notes of about 300 bytes each (about 90 MB of JSON lines). */
function homeWith(entries: number): string {
  const home = join(tempDir(), 'home');
  expect(runSilasProcess(['init', '--home', home]).code).toBe(0);
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore: new OsKeyring() });
  try {
    const text = 'n'.repeat(200);
    for (let done = (ledger.audit.head()?.index ?? -1) + 1; done < entries; done += 5000) {
      ledger.audit.appendBatch(Array.from({ length: Math.min(5000, entries - done) }, (_, i) => ({ event: 'operator.note' as const, data: { text: `${done + i} ${text}` } })));
    }
  } finally {
    ledger.close();
  }
  return home;
}

function peakRssKb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null; // already exited
  }
}

describe('silas audit export to a pipe (real process)', () => {
  it('streams a large ledger to a slow reader with bounded memory, complete and in order', async () => {
    const home = homeWith(ENTRIES);
    const child = spawnSilas(['audit', 'export', '--format', 'jsonl', '--home', home]);
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = once(child, 'exit') as Promise<[number | null]>;

    // A slow reader: one chunk at a time with a pause between, so the exporter outruns it and
    // must wait for the pipe to drain instead of buffering the rest of the ledger.
    const chunks: Buffer[] = [];
    let peak = 0;
    let ended = false;
    child.stdout.pause();
    child.stdout.once('end', () => (ended = true));
    while (!ended) {
      const chunk = child.stdout.read() as Buffer | null;
      if (chunk) chunks.push(chunk);
      peak = Math.max(peak, peakRssKb(child.pid!) ?? 0);
      await new Promise((r) => setTimeout(r, chunk ? 1 : 5));
      if (!chunk && child.stdout.readableEnded) break;
    }
    const [code] = await exited;
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(PEAK_RSS_LIMIT_KB);

    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    const records = lines.map((line) => JSON.parse(line) as { audit_index: number; event: string; text?: string });
    expect(records.map((r) => r.audit_index)).toEqual(Array.from({ length: records.length }, (_, i) => i));
    // Every note appended, once, in order, among the initialisation's entries and the checkpoints.
    const notes = records.filter((r) => r.event === 'operator.note').map((r) => Number(r.text!.split(' ')[0]));
    expect(notes[0]).toBeLessThan(10);
    expect(notes).toEqual(Array.from({ length: ENTRIES - notes[0]! }, (_, i) => notes[0]! + i));
  }, 120_000);

  it('streams the same bytes, in every format, as the lines it prints through CliIo', async () => {
    const home = homeWith(3000);
    const ledger = openHome(home, { create: false, keys: 'signer', secretStore: new OsKeyring() });
    ledger.audit.append('aip.decision', { direction: 'upstream', method: 'tools/call', tool: 'read_file', args: { path: '/a,"b"' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false, session_id: 's', policy_hash: 'a'.repeat(64) });
    ledger.close();
    for (const format of ['jsonl', 'csv', 'aip-jsonl']) {
      const argv = ['audit', 'export', '--format', format, '--home', home];
      const [streamed, printed] = [await runSilasChild(argv), await runSilas(argv, { env: process.env })];
      expect(streamed.code).toBe(0);
      expect(printed.code).toBe(0);
      expect(streamed.out.length).toBeGreaterThan(100);
      expect(streamed.out).toBe(`${printed.out}\n`);
    }
  }, 60_000);

  it('says so and exits 1 when the reader closes the pipe early (EPIPE)', async () => {
    const home = homeWith(20_000);
    const child = spawnSilas(['audit', 'export', '--format', 'csv', '--home', home]);
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    expect(first.toString().split('\n')[0]).toBe('index,id,timestamp,event,prev_hash,hash,data');
    child.stdout.destroy();
    const [code, signal] = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(err).toMatch(/^silas audit: the reader closed the output \(EPIPE\) after \d+ line\(s\); the export is incomplete/);
    expect(err).not.toMatch(/\n\s+at /);
  }, 60_000);
});
