import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { POLICY_PATH, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { TestBench } from './TestBench.js';

afterEach(cleanup);

const bench = () => screen.getByRole('region', { name: 'Test bench' });
const button = (name: string) => within(bench()).getByRole('button', { name }) as HTMLButtonElement;
const rows = () => within(screen.getByRole('table', { name: 'Test results' })).getAllByRole('row').slice(1);

describe('TestBench', () => {
  it('tries a call typed by hand against the draft, refusing arguments that are not a JSON object', async () => {
    const harness = await renderPolicies(<TestBench />);
    const draft = `${VALID_POLICY}# block: true\n`;
    typeDraft(harness, draft);
    expect(button('Try').disabled).toBe(true);
    fireEvent.change(within(bench()).getByRole('textbox', { name: 'Tool' }), { target: { value: ' write_file ' } });
    const args = within(bench()).getByRole('textbox', { name: 'Arguments' });
    fireEvent.change(args, { target: { value: '{"path": ' } });
    fireEvent.click(button('Try'));
    expect(args.getAttribute('aria-invalid')).toBe('true');
    expect(within(bench()).getByRole('textbox', { name: 'Arguments', description: /^Arguments are not JSON/ })).toBeTruthy();
    expect(harness.transport.callsTo('policies.try')).toEqual([]);

    fireEvent.change(args, { target: { value: '{"path": "/tmp/a"}' } });
    expect(args.getAttribute('aria-invalid')).toBe('false');
    fireEvent.click(button('Try'));
    expect(within(bench()).getByRole('status').textContent).toBe('Trying the call…');
    expect(button('Replay').disabled).toBe(true);
    await flushAll();
    expect(harness.transport.callsTo('policies.try')).toEqual([{ text: draft, path: POLICY_PATH, call: { tool: 'write_file', args: { path: '/tmp/a' } } }]);
    expect(within(bench()).getByText('The draft decides this call differently')).toBeTruthy();
    expect(rows().map((row) => row.textContent)).toEqual(['write_file {"path":"/tmp/a"}ALLOWBLOCKallowed_tools—Changes']);
  });

  it('replays the last N recorded calls of a server', async () => {
    const harness = await renderPolicies(<TestBench />);
    const last = within(bench()).getByRole('spinbutton', { name: 'Last N' });
    expect((last as HTMLInputElement).value).toBe('100');
    expect(button('Replay').disabled).toBe(true);
    fireEvent.change(within(bench()).getByRole('textbox', { name: 'Server' }), { target: { value: 'files' } });
    fireEvent.change(last, { target: { value: '0' } });
    expect(button('Replay').disabled).toBe(true);
    fireEvent.change(last, { target: { value: '25' } });
    fireEvent.click(button('Replay'));
    await flushAll();
    expect(harness.transport.callsTo('policies.replay')).toEqual([{ text: VALID_POLICY, path: POLICY_PATH, server: 'files', last: 25 }]);
    expect(rows()).toHaveLength(2);
    expect(within(bench()).getByText('Replayed 2 recorded calls: no decision changes')).toBeTruthy();
  });

  it('runs the suite kept beside the policy, and shows why it could not', async () => {
    const harness = await renderPolicies(<TestBench />);
    fireEvent.click(button('Run suite'));
    await flushAll();
    expect(harness.transport.callsTo('policies.suite')).toEqual([{ text: VALID_POLICY, path: POLICY_PATH }]);
    expect(rows().map((row) => row.lastElementChild?.textContent)).toEqual(['PASS', 'FAIL (expected ASK), Changes']);
    expect(rows()[1]!.className).toContain('bench-row--changed');

    harness.transport.handle('policies.suite', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no suite beside files.yaml' } }));
    fireEvent.click(button('Run suite'));
    await flushAll();
    expect(within(bench()).getByRole('alert').textContent).toBe('The test bench could not run: no suite beside files.yaml (E_NOT_FOUND)');
  });
});
