import { describe, expect, it } from 'vitest';
import { outcome } from '../testing/policy-fixtures.js';
import { callText, MAX_CALL_TEXT, replayResult, suiteResult, tryResult } from './policy-bench-rows.js';

describe('test bench rows', () => {
  it('shows a call as its tool and arguments, shortened past MAX_CALL_TEXT', () => {
    expect(callText('list_dir', {})).toBe('list_dir');
    expect(callText('write_file', { path: '/tmp/a' })).toBe('write_file {"path":"/tmp/a"}');
    const long = callText('write_file', { content: 'x'.repeat(500) });
    expect(long).toHaveLength(MAX_CALL_TEXT);
    expect(long.endsWith('…')).toBe(true);
  });

  it('turns a tried call into one row, changed when the draft decides otherwise', () => {
    const result = tryResult('write_file', { path: '/tmp/a' }, {
      draft: outcome('ASK', { rule: 'tool_rules[write_file] (ask)', failedArg: 'path', dlp: { action: 'redact', rules: ['api_key', 'email'] } }),
      current: outcome('ALLOW'),
    });
    expect(result).toMatchObject({ kind: 'try', scanned: null, suitePath: null });
    expect(result.rows).toEqual([
      {
        key: 'try',
        call: 'write_file {"path":"/tmp/a"}',
        inForce: 'ALLOW',
        draft: 'ASK',
        rule: 'tool_rules[write_file] (ask), argument path',
        dlp: 'redact: api_key, email',
        changed: true,
        expected: null,
        passed: null,
      },
    ]);
    const noCurrent = tryResult('x', {}, { draft: outcome('BLOCK', { reason: 'tool x is not in allowed_tools' }), current: null }).rows[0]!;
    expect(noCurrent).toMatchObject({ inForce: null, changed: false, rule: 'tool x is not in allowed_tools', dlp: null });
    expect(tryResult('x', {}, { draft: outcome('BLOCK', { reason: '', failedArg: 'path' }), current: null }).rows[0]!.rule).toBe('argument path');
  });

  it('keeps the runtime\'s word on which replayed calls change, and a suite case\'s verdict', () => {
    const replay = replayResult({
      scanned: 3,
      results: [
        { call: { index: 7, ts: '2026-01-01T10:00:00.000Z', server: 'files', tool: 'read_file', args: { path: '/a' }, recorded: 'ALLOW' }, draft: outcome('BLOCK'), current: outcome('ALLOW'), changed: true },
      ],
    });
    expect(replay).toMatchObject({ kind: 'replay', scanned: 3 });
    expect(replay.rows[0]).toMatchObject({ key: 'replay-7', call: 'read_file {"path":"/a"}', inForce: 'ALLOW', draft: 'BLOCK', changed: true, passed: null });

    const suite = suiteResult({
      suitePath: '/p/files.suite.json',
      results: [{ name: 'writes ask', expected: 'ASK', draft: outcome('ALLOW'), current: outcome('ASK'), passed: false, changed: true }],
    });
    expect(suite).toMatchObject({ kind: 'suite', suitePath: '/p/files.suite.json' });
    expect(suite.rows[0]).toMatchObject({ key: 'suite-0', call: 'writes ask', expected: 'ASK', passed: false, changed: true });
  });
});
