import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateContext } from '../../../src-shared/silas/gates.js';
import { useTempDirs } from '../../testing/temp.js';
import { PredicateGateProvider, parseNumber } from './predicate-provider.js';
import { GateConfigError } from './provider.js';
import { gate } from './testing/gates.js';

const provider = new PredicateGateProvider();
const run = async (g: ReturnType<typeof gate>, context: GateContext, p = provider) => p.prepare(g)(context);

describe('numeric_range (§5.5.2, §13.3 position_size)', () => {
  const position = gate({
    name: 'position_size',
    type: 'numeric_range',
    extract: 'position_usd',
    auto_approve: { min: 0, max: 25 },
    require_approval: { min: 25, max: 100 },
    block: { outside: [0, 100] },
  });

  it.each([
    [0, 'continue'],
    [10, 'continue'],
    [25, 'continue'], // both ranges include 25; auto-approve is checked first
    [25.01, 'require_approval'],
    [100, 'require_approval'],
    [100.01, 'block'],
    [-0.01, 'block'],
  ])('position_usd %s → %s', async (value, action) => {
    expect((await run(position, { position_usd: value })).action).toBe(action);
  });

  it('parses numeric strings like Python float() and blocks everything else', async () => {
    expect((await run(position, { position_usd: ' 12.5 ' })).action).toBe('continue');
    expect((await run(position, { position_usd: '1e1' })).action).toBe('continue');
    for (const bad of ['abc', 'NaN', 'inf', '', '12,5', true, null, [5]]) {
      const verdict = await run(position, { position_usd: bad as never });
      expect(verdict).toMatchObject({ action: 'block', reason: 'Value is not numeric' });
    }
  });

  it('blocks a value between the ranges and a missing value', async () => {
    const gap = gate({ type: 'numeric_range', extract: 'x', auto_approve: { min: 0.75, max: 1 }, require_approval: { min: 0.5, max: 0.6 } });
    expect((await run(gap, { x: 0.7 })).action).toBe('block');
    expect(await run(gap, {})).toMatchObject({ action: 'block', reason: 'Value not found in context: x' });
  });

  it('checks the hard block range before the approval ranges', async () => {
    const g = gate({ type: 'numeric_range', extract: 'x', auto_approve: { min: 0, max: 1000 }, block: { outside: [0, 100] } });
    expect((await run(g, { x: 500 })).action).toBe('block');
  });

  it('refuses at compile time a numeric gate with no range to pass', () => {
    expect(() => provider.prepare(gate({ type: 'numeric_range', extract: 'x', block: { outside: [0, 1] } }))).toThrow(GateConfigError);
  });

  it('clamps a tool argument when configured, and still blocks outside the hard limits', async () => {
    const clamp = gate({
      type: 'numeric_range',
      extract: 'tool_args.position_usd',
      auto_approve: { min: 0, max: 25 },
      require_approval: { min: 25, max: 100 },
      block: { outside: [0, 1000] },
      config: { clamp: { min: 0, max: 25 } },
    });
    expect(await run(clamp, { tool_args: { position_usd: 80 } })).toMatchObject({ action: 'continue', value: 25, modified_context: { tool_args: { position_usd: 25 } } });
    expect((await run(clamp, { tool_args: { position_usd: 5000 } })).action).toBe('block');
    expect(() => provider.prepare(gate({ type: 'numeric_range', extract: 'x', auto_approve: { min: 0, max: 1 }, config: { clamp: { min: 0, max: 1 } } }))).toThrow(/extract must be "tool_args.<name>"/);
  });

  it('parseNumber refuses non-finite input', () => {
    expect(parseNumber(Number.POSITIVE_INFINITY)).toBeNull();
    expect(parseNumber('1e999')).toBeNull();
    expect(parseNumber('-3')).toBe(-3);
  });
});

describe('string_match', () => {
  const g = gate({ type: 'string_match', extract: 'market', allowed_values: ['weather'], approval_values: ['sports'] });
  it('allowed → continue, approval → require_approval, unknown → block', async () => {
    expect((await run(g, { market: 'weather' })).action).toBe('continue');
    expect((await run(g, { market: 'sports' })).action).toBe('require_approval');
    expect((await run(g, { market: 'politics' })).action).toBe('block');
    expect((await run(g, { market: 'Weather' })).action).toBe('block');
    expect((await run(g, { market: { toString: 'weather' } })).action).toBe('block');
  });

  it('refuses at compile time a string gate with no values', () => {
    expect(() => provider.prepare(gate({ type: 'string_match', extract: 'm' }))).toThrow(/needs allowed_values and\/or approval_values/);
  });
});

describe('regex (RE2)', () => {
  it('match → continue, miss → block', async () => {
    const g = gate({ type: 'regex', extract: 'order_id', config: { pattern: '^ord_[0-9a-f]{8}$' } });
    expect((await run(g, { order_id: 'ord_deadbeef' })).action).toBe('continue');
    expect((await run(g, { order_id: 'ord_deadbeef; rm -rf /' })).action).toBe('block');
  });

  it('honours ignore_case and reads the trigger text when there is no extract', async () => {
    const g = gate({ on: 'every_user_message', type: 'regex', config: { pattern: '^hello', ignore_case: true } });
    expect((await run(g, { message: 'HELLO there' })).action).toBe('continue');
  });

  it.each([
    ['(a)\\1', /invalid or unsupported RE2 pattern/],
    ['(?=admin)', /invalid or unsupported RE2 pattern/],
    ['a{1000}{1000}', /invalid or unsupported RE2 pattern/],
    ['((a{100}){100}){100}', /invalid or unsupported RE2 pattern/],
    ['x'.repeat(2001), /config.pattern/],
  ])('refuses %s at compile time', (pattern, message) => {
    expect(() => provider.prepare(gate({ type: 'regex', extract: 'v', config: { pattern } }))).toThrow(message);
  });

  it('evaluates a catastrophic-backtracking shape on attacker input correctly (RE2 is linear)', async () => {
    const g = gate({ type: 'regex', extract: 'v', config: { pattern: '^(a+)+$' } });
    expect((await run(g, { v: `${'a'.repeat(200_000)}!` })).action).toBe('block');
    expect((await run(g, { v: 'a'.repeat(200_000) })).action).toBe('continue');
  });

  it('refuses a missing pattern and unknown config keys, naming the field', () => {
    expect(() => provider.prepare(gate({ type: 'regex', extract: 'v' }))).toThrow(/config.pattern/);
    expect(() => provider.prepare(gate({ type: 'regex', extract: 'v', config: { pattern: 'x', flags: 'g' } }))).toThrow(/unknown key\(s\) flags/);
  });

  it('blocks oversized values instead of scanning them', async () => {
    const g = gate({ type: 'regex', extract: 'v', config: { pattern: 'x' } });
    expect((await run(g, { v: 'x'.repeat(1_000_001) })).reason).toMatch(/longer than/);
  });
});

describe('file_valid', () => {
  const temp = useTempDirs('silas-gates-');

  function setup() {
    const root = temp();
    const outside = temp();
    writeFileSync(join(root, 'report.txt'), 'hello');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    const p = new PredicateGateProvider({ fileRoots: [root] });
    return { root, outside, p };
  }
  const fileGate = (config = {}) => gate({ on: 'after_step', after_step: 1, type: 'file_valid', extract: 'path', config });

  it('passes an existing file inside the permitted directory, relative or absolute', async () => {
    const { root, p } = setup();
    expect((await run(fileGate(), { path: 'report.txt' }, p)).action).toBe('continue');
    expect((await run(fileGate(), { path: join(root, 'report.txt') }, p)).action).toBe('continue');
  });

  it('refuses traversal, outside paths and symlink escapes with the spec reason', async () => {
    const { root, outside, p } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    for (const path of ['../secret.txt', 'sub/../../x', join(outside, 'secret.txt'), '/etc/passwd', 'link.txt', 'a\0b']) {
      expect(await run(fileGate(), { path }, p)).toMatchObject({ action: 'block', reason: 'Path outside permitted directories' });
    }
  });

  it('blocks a missing file, a directory, and a file over max_size_bytes', async () => {
    const { p } = setup();
    expect(await run(fileGate(), { path: 'nope.txt' }, p)).toMatchObject({ action: 'block', reason: 'File not found' });
    expect(await run(fileGate(), { path: 'sub' }, p)).toMatchObject({ action: 'block', reason: 'Not a regular file' });
    expect((await run(fileGate({ max_size_bytes: 4 }), { path: 'report.txt' }, p)).reason).toMatch(/5 bytes, more than max_size_bytes 4/);
    expect((await run(fileGate({ max_size_bytes: 5 }), { path: 'report.txt' }, p)).action).toBe('continue');
  });

  it('needs permitted directories and an extract', () => {
    expect(() => provider.prepare(fileGate())).toThrow(/needs permitted directories/);
    expect(() => new PredicateGateProvider({ fileRoots: ['/tmp'] }).prepare(gate({ type: 'file_valid' }))).toThrow(/extract/);
  });
});

describe('approval_always', () => {
  it('always requires approval, whatever the value', async () => {
    const g = gate({ type: 'approval_always', extract: 'amount' });
    for (const context of [{ amount: 0 }, { amount: 1e9 }, {}] as GateContext[]) expect((await run(g, context)).action).toBe('require_approval');
  });

  it('custom_check is not a predicate', () => {
    expect(() => provider.prepare(gate({ type: 'custom_check' }))).toThrow(/use provider: script or custom/);
  });
});
