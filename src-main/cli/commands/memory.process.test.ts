import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleText, everyKindOfMemory } from '../../silas/memory/testing/memory-bundles.js';
import { runSilasChild } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// The real binary, the real OS keyring (scripts/with-keyring.sh), the bundle through a real pipe.
const tempDir = useTempDirs('silas-memory-process-');

describe('silas memory (real process)', () => {
  it('exports to stdout through a pipe and imports that output into another home', async () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    const inits = await Promise.all([runSilasChild(['init', '--home', a]), runSilasChild(['init', '--home', b])]);
    expect(inits.map((r) => r.code)).toEqual([0, 0]);
    const items = everyKindOfMemory();
    const source = join(dir, 'in.jsonl');
    writeFileSync(source, bundleText(items));
    expect(await runSilasChild(['memory', 'import', source, '--home', a])).toMatchObject({ code: 0 });

    const exported = await runSilasChild(['memory', 'export', '--home', a]);
    expect(exported).toMatchObject({ code: 0, err: expect.stringContaining(`silas memory: exported ${items.length} memories`) });
    const lines = exported.out.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(1, -2)).toEqual(bundleText(items).split('\n').slice(1, -2));

    const piped = join(dir, 'piped.jsonl');
    writeFileSync(piped, exported.out);
    const imported = await runSilasChild(['memory', 'import', piped, '--mode', 'replace', '--home', b, '--json']);
    expect(JSON.parse(imported.out)).toMatchObject({ ok: true, inserted: items.length });

    writeFileSync(piped, exported.out.slice(0, -100));
    const cut = await runSilasChild(['memory', 'import', piped, '--home', b]);
    expect(cut).toMatchObject({ code: 1, err: expect.stringContaining('the bundle is truncated') });
  }, 120_000);
});
