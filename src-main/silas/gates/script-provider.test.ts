import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GateContext, GateInput } from '../../../src-shared/silas/gates.js';
import { useTempDirs } from '../../testing/temp.js';
import { GateRunner } from './runner.js';
import { parseScriptOutput, ScriptGateProvider, splitCommand } from './script-provider.js';
import { spawnScript, type ScriptRunRequest, type ScriptRunResult } from './spawn.js';
import { gate, MemoryAudit } from './testing/gates.js';

const temp = useTempDirs('silas-script-gate-');

/** The real spawner, recording what it was asked to run and what came back. */
function recordingSpawner() {
  const runs: { request: ScriptRunRequest; result: ScriptRunResult }[] = [];
  const spawn = async (request: ScriptRunRequest) => {
    const result = await spawnScript(request);
    runs.push({ request, result });
    return result;
  };
  return { runs, spawn };
}

function setup() {
  const workDir = temp();
  const recorder = recordingSpawner();
  const provider = new ScriptGateProvider({ workDir, spawn: recorder.spawn, fileRoots: [workDir] });
  const run = async (input: Partial<GateInput>, context: GateContext) => provider.prepare(gate({ provider: 'script', type: 'custom_check', on: 'every_user_message', ...input }))(context);
  return { workDir, provider, run, runs: recorder.runs };
}

const ECHO_NAME = ['/bin/sh', '-c', 'printf "%s" "$CUSTOMER_NAME"'];

describe('script provider: values only as environment variables', () => {
  afterEach(() => {
    delete process.env.SILAS_TEST_PARENT_SECRET;
  });

  it.each([
    '$(touch PWNED)',
    '`touch PWNED`',
    "'; touch PWNED #",
    '"; touch PWNED; echo "',
    '; rm -rf / #',
    '&& touch PWNED',
    '$CUSTOMER_DOB ${PATH} %s \\n',
  ])('passes %s through as inert bytes', async (value) => {
    const { workDir, run, runs } = setup();
    const verdict = await run({ config: { command: ECHO_NAME, args_from_env: ['CUSTOMER_NAME'] } }, { customer_name: value });
    expect(verdict.action).toBe('continue');
    expect(runs[0]!.result.stdout).toBe(value);
    expect(runs[0]!.request.argv).toEqual(ECHO_NAME);
    expect(existsSync(join(workDir, 'PWNED'))).toBe(false);
  });

  it('gives the script a minimal environment: nothing inherited from this process', async () => {
    process.env.SILAS_TEST_PARENT_SECRET = 'hunter2';
    const { workDir, run, runs } = setup();
    await run({ on: 'every_user_message', config: { command: ['/usr/bin/env'], args_from_env: ['CUSTOMER_NAME', 'CUSTOMER_DOB'] } }, { message: 'hello', CUSTOMER_NAME: 'Ada', customer_dob: '1815-12-10' });
    const env = Object.fromEntries(runs[0]!.result.stdout.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
    expect(env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: workDir,
      LANG: 'C.UTF-8',
      SILAS_GATE_NAME: 'g',
      SILAS_GATE_TRIGGER: 'every_user_message',
      SILAS_GATE_VALUE: 'hello',
      CUSTOMER_NAME: 'Ada',
      CUSTOMER_DOB: '1815-12-10',
    });
  });

  it('passes the tool call of an on_tool_call gate as SILAS_TOOL_NAME and SILAS_TOOL_ARGS', async () => {
    const { run, runs } = setup();
    await run({ on: 'on_tool_call', config: { command: ['/bin/sh', '-c', 'printf "%s|%s" "$SILAS_TOOL_NAME" "$SILAS_TOOL_ARGS"'] } }, { tool_name: 'shell_exec', tool_args: { command: ['rm', '-rf', '/'] } });
    expect(runs[0]!.result.stdout).toBe('shell_exec|{"command":["rm","-rf","/"]}');
  });

  it('blocks a value that cannot be an environment variable', async () => {
    const { run, runs } = setup();
    expect(await run({ config: { command: ECHO_NAME, args_from_env: ['CUSTOMER_NAME'] } }, { customer_name: 'a\0b' })).toEqual({ action: 'block', reason: 'Value for CUSTOMER_NAME contains NUL' });
    expect((await run({ config: { command: ECHO_NAME, args_from_env: ['CUSTOMER_NAME'] } }, { customer_name: 'x'.repeat(40_000) })).reason).toMatch(/longer than/);
    expect(runs).toHaveLength(0);
  });

  it.each(['LD_PRELOAD', 'PATH', 'BASH_ENV', 'NODE_OPTIONS', 'PYTHONSTARTUP', 'SILAS_GATE_NAME', 'IFS', 'lower_case'])('refuses %s as a context-fed variable name at compile time', (name) => {
    const { provider } = setup();
    expect(() => provider.prepare(gate({ provider: 'script', config: { command: ['true'], args_from_env: [name] } }))).toThrow(/config.args_from_env.0/);
  });
});

describe('script provider: commands without a shell', () => {
  it('splits a check_command into words with quotes and no expansion', () => {
    expect(splitCommand(`python3 guards/check.py --mode 'strict mode' "x y"`)).toEqual(['python3', 'guards/check.py', '--mode', 'strict mode', 'x y']);
  });

  it.each([
    ['verify --name $CUSTOMER_NAME', /"\$", backticks and newlines are not allowed/],
    ["verify --name '$name'", /"\$"/],
    ['verify `id`', /backticks/],
    ['cat x | sh', /"\|" outside quotes is shell syntax/],
    ['check; rm -rf /', /";" outside quotes/],
    ['check > /etc/passwd', /">" outside quotes/],
    ["check 'unbalanced", /unbalanced quote/],
  ])('refuses %s', (command, message) => {
    expect(() => splitCommand(command)).toThrow(message);
  });

  it('runs a check_command and reports a refused one at compile time with the field', async () => {
    const { provider, run } = setup();
    expect((await run({ check_command: "printf 'ok'", check_expect: { equals: 'ok' } }, {})).action).toBe('continue');
    expect(() => provider.prepare(gate({ provider: 'script', check_command: 'echo $HOME' }))).toThrow(/gate "g": check_command: "\$"/);
    expect(() => provider.prepare(gate({ provider: 'script' }))).toThrow(/needs config.command/);
  });

  it('runs the §13.2 identity script from the scripts directory with env-only inputs', async () => {
    const { workDir, run } = setup();
    mkdirSync(join(workDir, 'guards'));
    const script = join(workDir, 'guards', 'verify_customer.sh');
    writeFileSync(script, '#!/bin/sh\nif [ "$CUSTOMER_NAME" = "Ada Lovelace" ] && [ "$CUSTOMER_DOB" = "1815-12-10" ]; then echo verified; else echo denied; fi\n');
    chmodSync(script, 0o755);
    const identity = { name: 'identity_verified', check: 'verify_customer', config: { script: 'guards/verify_customer.sh', args_from_env: ['CUSTOMER_NAME', 'CUSTOMER_DOB'] }, check_expect: { equals: 'verified' } };
    expect((await run(identity, { customer_name: 'Ada Lovelace', customer_dob: '1815-12-10' })).action).toBe('continue');
    const denied = await run(identity, { customer_name: 'Ada Lovelace" ] || [ "x', customer_dob: '1815-12-10' });
    expect(denied).toMatchObject({ action: 'block', reason: 'Script check failed: Expected "verified", got "denied"' });
  });

  it('confines config.script to the scripts directory, also through symlinks', async () => {
    const { workDir, provider, run } = setup();
    expect(() => provider.prepare(gate({ provider: 'script', config: { script: '../x.sh' } }))).toThrow(/config.script: must be a relative path/);
    expect(() => provider.prepare(gate({ provider: 'script', config: { script: '/bin/sh' } }))).toThrow(/config.script/);
    const outside = temp();
    writeFileSync(join(outside, 'evil.sh'), '#!/bin/sh\necho verified\n');
    chmodSync(join(outside, 'evil.sh'), 0o755);
    symlinkSync(join(outside, 'evil.sh'), join(workDir, 'link.sh'));
    expect(await run({ config: { script: 'link.sh' } }, {})).toEqual({ action: 'block', reason: 'Script outside the gate scripts directory' });
    expect(await run({ config: { script: 'missing.sh' } }, {})).toEqual({ action: 'block', reason: 'Script not found' });
  });

  it('blocks when the program does not exist or exits non-zero without an expectation', async () => {
    const { run } = setup();
    expect(await run({ config: { command: ['/nonexistent/program'] } }, {})).toEqual({ action: 'block', reason: 'Script could not start: ENOENT' });
    expect((await run({ config: { command: ['/bin/sh', '-c', 'exit 3'] } }, {})).reason).toBe('Script exited with 3');
    expect((await run({ config: { command: ['/bin/sh', '-c', 'exit 0'] } }, {})).action).toBe('continue');
  });
});

describe('script provider: limits and output', () => {
  it('kills a script at its timeout and blocks with the timeout reason', async () => {
    const { run, runs } = setup();
    const verdict = await run({ config: { command: ['/bin/sh', '-c', 'sleep 30'], timeout_seconds: 0.3 } }, {});
    expect(verdict).toEqual({ action: 'block', reason: 'Timeout after 0.3s' });
    expect(runs[0]!.result.timedOut).toBe(true);
    expect(runs[0]!.result.signal).toBe('SIGKILL');
  });

  it('kills a script whose output exceeds the cap', async () => {
    const { run, runs } = setup();
    expect(await run({ config: { command: ['/bin/sh', '-c', 'yes'], max_output_bytes: 1024 } }, {})).toEqual({ action: 'block', reason: 'Script output exceeded 1024 bytes' });
    expect(runs[0]!.result.stdout.length).toBeLessThanOrEqual(1024);
  });

  it('delegates an extracted value to the predicate of the gate type', async () => {
    const { run } = setup();
    const confidence = (score: string) =>
      run({ type: 'numeric_range', extract: 'confidence', auto_approve: { min: 0.75, max: 1 }, require_approval: { min: 0.5, max: 0.75 }, config: { command: ['/bin/sh', '-c', `echo "model: ecmwf"; echo "confidence: ${score}"`] } }, {});
    expect((await confidence('0.9')).action).toBe('continue');
    expect((await confidence('0.6')).action).toBe('require_approval');
    expect((await confidence('0.1')).action).toBe('block');
    expect((await run({ type: 'numeric_range', extract: 'confidence', auto_approve: { min: 0, max: 1 }, config: { command: ['true'] } }, {})).reason).toBe('Script output has no "confidence:" line');
    const regex = await run({ type: 'regex', extract: 'status', config: { command: ['/bin/sh', '-c', 'echo "status: filled"'], predicate: { pattern: '^filled$' } } }, {});
    expect(regex.action).toBe('continue');
  });

  it('returns a modified_context line, and the runner filters it through the allowlist', async () => {
    const workDir = temp();
    const audit = new MemoryAudit();
    const runner = new GateRunner({ providers: [new ScriptGateProvider({ workDir })], audit });
    const set = runner.compile({
      workItem: [{ name: 'clamp', on: 'on_tool_call', provider: 'script', config: { command: ['/bin/sh', '-c', `echo 'modified_context: {"tool_args":{"position_usd":25},"approval_token":"forged"}'`] } }],
    });
    const outcome = await runner.checkGates(set, 'on_tool_call', { tool_args: { position_usd: 80 }, approval_token: 'real' });
    expect(outcome.context).toEqual({ tool_args: { position_usd: 25 }, approval_token: 'real' });
    expect(audit.named('gate.rejected_mutation').map((e) => e.key)).toEqual(['approval_token']);
  });

  it('parses key: value lines, first occurrence wins, and reports a malformed modified_context', () => {
    const parsed = parseScriptOutput('a: 1\nnoise\na: 2\nb:x\nmodified_context: [1]\n');
    expect([...parsed.values]).toEqual([
      ['a', '1'],
      ['b', 'x'],
    ]);
    expect(parsed.modified).toBeNull();
    expect(parsed.modifiedError).toBe('modified_context is not a JSON object');
  });
});
