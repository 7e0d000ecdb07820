import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openHome } from '../../app/home.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { memorySealer } from '../../silas/memory/memory-seals.js';
import { bundleText, everyKindOfMemory, memoryItem } from '../../silas/memory/testing/memory-bundles.js';
import { LARGE_IMPORT_BYTES } from './memory.js';
import { MemoryRepository } from '../../store/repositories/memory.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// `silas memory export|import` in-process, on homes made by `silas init` with an in-memory keyring.
const tempDir = useTempDirs('silas-memory-cli-');
const store = new MemorySecretStore();
let dir: string;

async function initHome(name: string): Promise<string> {
  const home = join(dir, name);
  expect((await runSilas(['init', '--home', home], { secretStore: store })).code).toBe(0);
  return home;
}

const silas = (...argv: string[]) => runSilas(argv, { secretStore: store });

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const records = (text: string) => text.trimEnd().split('\n').slice(1, -1);

beforeEach(() => {
  dir = tempDir();
});

describe('silas memory: usage', () => {
  it('prints its usage, and refuses unknown subcommands, flags and modes with exit 2', async () => {
    expect(await silas('memory', '--help')).toMatchObject({ code: 0, out: expect.stringContaining('silas memory import FILE [--mode merge|replace]') });
    expect(await silas('memory')).toMatchObject({ code: 2, err: expect.stringContaining('name a subcommand (export, import)') });
    expect(await silas('memory', 'copy')).toMatchObject({ code: 2, err: expect.stringContaining('unknown memory command "copy"') });
    expect(await silas('memory', 'export', '--format', 'csv')).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown option '--format'/) });
    expect(await silas('memory', 'export', '--since', 'yesterday')).toMatchObject({ code: 2, err: expect.stringContaining('--since: expected an ISO 8601 time') });
    expect(await silas('memory', 'import', 'b.jsonl', '--mode', 'sideways')).toMatchObject({ code: 2, err: expect.stringContaining('--mode: expected merge or replace, got "sideways"') });
    expect(await silas('memory', 'import')).toMatchObject({ code: 2, err: expect.stringContaining('name one bundle file') });
    expect((await silas('--help')).out).toContain('memory   export and import Silas memory as a portable bundle');
  });
});

describe('silas memory export and import', () => {
  it('carries every memory from one home to another: 0600 file, stdout, summary, seals that hold', async () => {
    const a = await initHome('a');
    const items = everyKindOfMemory();
    const bundle = file('in.jsonl', bundleText(items));
    const imported = await silas('memory', 'import', bundle, '--home', a);
    expect(imported).toMatchObject({ code: 0, out: expect.stringContaining(`: ${items.length} memories: ${items.length} new, 0 updated, 0 unchanged, 0 removed`) });

    const out = join(dir, 'a.jsonl');
    const exported = await silas('memory', 'export', '--out', out, '--home', a);
    expect(exported).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`^exported ${items.length} memories \\([\\d,]+ bytes, sha256 [0-9a-f]{64}\\) to ${out}$`)) });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(records(readFileSync(out, 'utf8'))).toEqual(records(readFileSync(bundle, 'utf8')));

    const toStdout = await silas('memory', 'export', '--home', a, '--scope', 'owner', '--no-raw');
    expect(toStdout.code).toBe(0);
    expect(toStdout.err).toMatch(/^silas memory: exported \d+ memories/);
    const lines = records(toStdout.out).map((l) => JSON.parse(l) as { scope_id: string; reingestion_tier: string });
    expect(lines.length).toBe(items.filter((i) => i.scope_id === 'owner' && i.reingestion_tier === 'active').length);

    const b = await initHome('b');
    const json = await silas('memory', 'import', out, '--mode', 'replace', '--home', b, '--json');
    expect(JSON.parse(json.out)).toMatchObject({ ok: true, mode: 'replace', count: items.length, inserted: items.length, scope: null, include_raw: true });

    const ledger = openHome(b, { create: false, keys: 'signer', secretStore: store });
    try {
      const memory = new MemoryRepository(ledger.db, memorySealer(ledger.seals));
      for (const item of items) expect(memory.get(item.scope_id, item.memory_id)).toEqual(item);
      const recorded = ledger.audit.tail(20).map((e) => e.event);
      expect(recorded).toContain('silas.memory.imported');
      expect(recorded).not.toContain('state.seal_refused');
    } finally {
      ledger.close();
    }
  });

  it('refuses a cut bundle and a protected change with exit 1, the reason and the fix, and changes nothing', async () => {
    const h = await initHome('h');
    await silas('memory', 'import', file('start.jsonl', bundleText([memoryItem('c', { trust_level: 'constitutional' }), memoryItem('w')])), '--home', h);
    const before = (await silas('memory', 'export', '--home', h)).out;

    const whole = bundleText([memoryItem('n1'), memoryItem('n2')]);
    const cut = await silas('memory', 'import', file('cut.jsonl', whole.slice(0, whole.length - 40)), '--home', h);
    expect(cut).toMatchObject({ code: 1, err: expect.stringMatching(/^silas memory: .*cut\.jsonl: the bundle is truncated.*; export the bundle again \(nothing was imported\)/) });

    const missing = await silas('memory', 'import', join(dir, 'nope.jsonl'), '--home', h);
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('cannot read the bundle') });

    const change = await silas('memory', 'import', file('change.jsonl', bundleText([memoryItem('c', { trust_level: 'constitutional', content: 'changed' })])), '--home', h);
    expect(change).toMatchObject({ code: 1, err: expect.stringContaining('memory c (line 2) is constitutional: a constitutional memory cannot be changed or removed at runtime') });

    expect(records((await silas('memory', 'export', '--home', h)).out)).toEqual(records(before));
    const tail = JSON.parse(`[${(await silas('audit', 'tail', '-n', '20', '--json', '--home', h)).out.split('\n').join(',')}]`) as { event: string; data: Record<string, unknown> }[];
    expect(tail.find((e) => e.event === 'silas.memory.import_refused')?.data).toMatchObject({ mode: 'merge', memory_ids: ['c'], refused: 1 });
  });

  it('leaves no file behind when the export cannot be written where asked', async () => {
    const h = await initHome('h');
    const result = await silas('memory', 'export', '--out', join(dir, 'missing', 'x.jsonl'), '--home', h);
    expect(result).toMatchObject({ code: 1, err: expect.stringMatching(/^silas memory: cannot write .*x\.jsonl: .*ENOENT.*; name a file in a folder that exists/) });
    expect(readdirSync(dir)).toEqual(['h']);
    // The old file stays whole when an export over it fails.
    const out = join(dir, 'kept.jsonl');
    writeFileSync(out, 'previous bundle\n');
    expect((await silas('memory', 'export', '--out', out, '--since', '2026-01-01T00:00:00Z', '--scope', '', '--home', h)).code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('previous bundle\n');
  });
});

describe('silas memory import under a running control center', () => {
  it('refuses a large bundle while the runtime holds the home, saying to stop it first; a small one goes in', async () => {
    const home = await initHome('running');
    // The runtime's lock, held by a live process (this one).
    writeFileSync(join(home, 'runtime.lock'), String(process.pid));
    const big = 'x'.repeat(Math.ceil(LARGE_IMPORT_BYTES / 3) + 10);
    const large = file('large.jsonl', bundleText([memoryItem('a', { content: big }), memoryItem('b', { content: big }), memoryItem('c', { content: big })]));
    expect(await silas('memory', 'import', large, '--home', home)).toMatchObject({ code: 1, err: expect.stringMatching(/control center is running \(pid \d+\).*Stop the control center.*nothing was imported/s) });
    expect(await silas('memory', 'import', file('small.jsonl', bundleText([memoryItem('s')])), '--home', home)).toMatchObject({ code: 0 });
  });
});
