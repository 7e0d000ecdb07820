import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { StandingApproval } from '../../../store/standing-slice.js';
import { agentClient, clientServer } from '../../../testing/client-fixtures.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { OTHER_PATH, POLICY_PATH, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll } from '../../../testing/render-policies.js';
import { renderCockpit } from '../../../testing/render-cockpit.js';
import { governedServer } from '../../../testing/server-fixtures.js';
import { standingApproval } from '../../../testing/standing-fixtures.js';
import { StandingApprovals } from './StandingApprovals.js';

afterEach(cleanup);

const OTHER_POLICY = VALID_POLICY.replace('name: files', 'name: web');
const RULE = '  tool_rules:\n    - tool: delete_file\n      action: allow\n';

/** A runtime where client "files" is wrapped under POLICY_PATH and "web" under nothing known. */
async function renderStanding(standing: StandingApproval[]) {
  const disk = new PolicyDisk({ [POLICY_PATH]: VALID_POLICY, [OTHER_PATH]: OTHER_POLICY });
  const transport = disk
    .serve(new FakeTransport('connected'))
    .handle('approvals.listStanding', () => ({ ok: true, value: { standing } }))
    .handle('clients.list', () => ({ ok: true, value: { clients: [agentClient({ servers: [clientServer('files', { wrapped: true, policy: POLICY_PATH }), clientServer('web')] })] } }))
    .handle('servers.list', () => ({ ok: true, value: { servers: [governedServer('files'), governedServer('web', { policyHash: null })] } }))
    .handle('policies.edit', (args) => {
      const { text } = args as { text: string };
      return { ok: true, value: { text: `${text}${RULE}`, notes: ['"token" is not pinned: its value was redacted'] } };
    });
  const harness = renderCockpit(<StandingApprovals />, { transport });
  await flushAll();
  return harness;
}

const item = (name: string) => screen.getByRole('listitem', { name });
const makeRule = () => screen.getByRole('button', { name: 'Make a rule of delete_file on files' });

describe('StandingApprovals as rules', () => {
  it('says which policy each approval extends, and offers a rule only where that policy is known', async () => {
    await renderStanding([standingApproval(1), standingApproval(2, { server: 'web', tool: 'fetch' })]);
    expect(item('delete_file on files').textContent).toContain('Extends policy files.yaml');
    expect(within(item('delete_file on files')).getByText(/Extends policy/).getAttribute('title')).toBe(POLICY_PATH);
    expect(makeRule().textContent).toBe('Make a rule');
    expect(item('fetch on web').textContent).not.toContain('Extends policy');
    expect(screen.queryByRole('button', { name: 'Make a rule of fetch on web' })).toBeNull();
  });

  it("opens the approval's policy and adds the rule to its draft, without saving", async () => {
    const harness = await renderStanding([standingApproval(1)]);
    act(() => harness.cockpit.actions.openPolicy(OTHER_PATH));
    await flushAll();
    fireEvent.click(makeRule());
    await flushAll();
    const { open, form } = harness.store.getState().policyEditor;
    expect(open?.path).toBe(POLICY_PATH);
    expect(harness.transport.callsTo('policies.edit')).toEqual([
      { text: VALID_POLICY, change: { kind: 'rule_from_standing', tool: 'delete_file', args: { path: '/home/ada/tmp/1.txt', token: '[REDACTED:api_key]' } } },
    ]);
    expect(open?.draft).toBe(`${VALID_POLICY}${RULE}`);
    expect(open?.savedText).toBe(VALID_POLICY);
    expect(form.notes).toEqual(['"token" is not pinned: its value was redacted']);
    expect(harness.transport.callsTo('policies.validate').at(-1)).toEqual({ text: `${VALID_POLICY}${RULE}` });
    expect(harness.transport.callsTo('policies.save')).toHaveLength(0);
  });

  it('adds the rule to the draft already open, keeping its unsaved edits', async () => {
    const harness = await renderStanding([standingApproval(1)]);
    act(() => harness.cockpit.actions.openPolicy(POLICY_PATH));
    await flushAll();
    act(() => harness.cockpit.actions.editPolicy(`${VALID_POLICY}# mine\n`));
    fireEvent.click(makeRule());
    await flushAll();
    expect(harness.transport.callsTo('policies.read')).toHaveLength(1);
    expect(harness.store.getState().policyEditor.open?.draft).toBe(`${VALID_POLICY}# mine\n${RULE}`);
  });
});
