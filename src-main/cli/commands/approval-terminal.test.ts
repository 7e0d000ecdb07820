import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { controllingTerminal } from './approval-terminal.js';

// Where `silas chat --approve-here` reads its confirmation: the controlling terminal, never a pipe.
const MODULE = fileURLToPath(new URL('./approval-terminal.ts', import.meta.url));
const io = (stdin: unknown, stdout: unknown) => ({ stdin: stdin as NodeJS.ReadableStream, stdout: stdout as NodeJS.WritableStream, env: {}, out: () => undefined, err: () => undefined });
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('the controlling terminal for approvals', () => {
  it('refuses piped standard input or output', () => {
    expect(controllingTerminal(io(new PassThrough(), new PassThrough()))).toEqual({ refused: 'standard input and output must both be a terminal' });
    expect(controllingTerminal(io(Object.assign(new PassThrough(), { isTTY: true }), new PassThrough()))).toMatchObject({ refused: expect.any(String) });
    expect(controllingTerminal(io(undefined, undefined))).toMatchObject({ refused: expect.any(String) });
  });

  it.runIf(hasScript)('reads the answer typed on a pseudo-terminal (`script`), from /dev/tty', async () => {
    const program = [
      `import { controllingTerminal } from ${JSON.stringify(MODULE)};`,
      "const t = controllingTerminal({ stdin: process.stdin, stdout: process.stdout, env: {}, out() {}, err() {} });",
      "if ('refused' in t) { console.log('REFUSED ' + t.refused); process.exit(3); }",
      "console.log('ANSWER=' + JSON.stringify(await t.ask('code: ')));",
    ].join(' ');
    const command = `${JSON.stringify(process.execPath)} --import tsx --input-type=module -e ${JSON.stringify(program)}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 20_000;
    while (!output.includes('code: ') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    child.stdin.write('ab12cd34\n');
    const code = await exited;
    child.stdin.end();
    expect(output).toContain('ANSWER="ab12cd34');
    expect(code).toBe(0);
  }, 30_000);
});
