import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { replayResult, suiteResult } from '../../../store/policy-bench-rows.js';
import { outcome } from '../../../testing/policy-fixtures.js';
import { BenchResults } from './BenchResults.js';

afterEach(cleanup);

const call = (index: number, tool: string) => ({ index, ts: '2026-01-01T10:00:00.000Z', server: 'files', tool, args: { path: `/tmp/${index}` }, recorded: 'ALLOW' });

const cells = (row: HTMLElement) => within(row).getAllByRole('cell').map((cell) => cell.textContent);

describe('BenchResults', () => {
  it('shows each call under the policy in force and the draft, and marks the rows whose decision changes', () => {
    const result = replayResult({
      scanned: 2,
      results: [
        {
          call: call(1, 'write_file'),
          draft: outcome('ASK', { rule: 'tool_rules[write_file] (ask)', dlp: { action: 'redact', rules: ['api_key'] } }),
          current: outcome('ALLOW'),
          changed: true,
        },
        { call: call(2, 'read_file'), draft: outcome('ALLOW', { rule: 'allowed_tools' }), current: outcome('ALLOW'), changed: false },
      ],
    });
    render(<BenchResults result={result} />);
    expect(screen.getByText('Replayed 2 recorded calls: 1 decision changes')).toBeTruthy();
    const table = screen.getByRole('table', { name: 'Test results' });
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Call', 'In force', 'Draft', 'Rule', 'DLP', 'Outcome']);
    const [, changed, same] = within(table).getAllByRole('row');
    expect(cells(changed!)).toEqual(['write_file {"path":"/tmp/1"}', 'ALLOW', 'ASK', 'tool_rules[write_file] (ask)', 'redact: api_key', 'Changes']);
    expect(changed!.className).toContain('bench-row--changed');
    expect(cells(same!)).toEqual(['read_file {"path":"/tmp/2"}', 'ALLOW', 'ALLOW', 'allowed_tools', '—', 'Same']);
    expect(same!.className).not.toContain('bench-row--changed');
  });

  it('shows PASS or FAIL for each suite case', () => {
    const result = suiteResult({
      suitePath: '/p/files.suite.json',
      results: [
        { name: 'reads are allowed', expected: 'ALLOW', draft: outcome('ALLOW'), current: null, passed: true, changed: false },
        { name: 'writes ask', expected: 'ASK', draft: outcome('ALLOW'), current: outcome('ASK'), passed: false, changed: true },
      ],
    });
    render(<BenchResults result={result} />);
    expect(screen.getByText('Suite /p/files.suite.json: 1 passed, 1 failed; 1 decision changes')).toBeTruthy();
    const [, pass, fail] = within(screen.getByRole('table', { name: 'Test results' })).getAllByRole('row');
    expect(cells(pass!)).toEqual(['reads are allowed', '—', 'ALLOW', 'ALLOW by rule', '—', 'PASS']);
    expect(cells(fail!).at(-1)).toBe('FAIL (expected ASK), Changes');
    expect(fail!.className).toContain('bench-row--failed');
  });

  it('shows no table when a replay found no calls', () => {
    render(<BenchResults result={replayResult({ scanned: 0, results: [] })} />);
    expect(screen.getByText('No recorded calls to replay (0 records read)')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });
});
