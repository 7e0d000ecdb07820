import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientServerView } from '../../../../src-shared/schemas/clients.js';
import type { WrapFlow as WrapFlowState } from '../../../store/clients-slice.js';
import { agentClient, CLAUDE_FILE, clientServer, POLICY, wrapPlan } from '../../../testing/client-fixtures.js';
import { WrapFlow } from './WrapFlow.js';

afterEach(cleanup);

const flow = (overrides: Partial<WrapFlowState> = {}): WrapFlowState => ({ client: 'claude-desktop', phase: 'editing', requestedPolicy: null, plan: null, error: null, ...overrides });

/** files and github (stdio), linear (remote): the fixture's Claude Desktop. */
function renderFlow(state: WrapFlowState, servers: readonly ClientServerView[] = agentClient().servers) {
  const handlers = { onPreview: vi.fn(), onApply: vi.fn(), onCancel: vi.fn() };
  const element = (next: WrapFlowState) => <WrapFlow label="Claude Desktop" file={CLAUDE_FILE} servers={servers} flow={next} {...handlers} />;
  const result = render(element(state));
  const group = screen.getByRole('group', { name: 'Wrap servers of Claude Desktop' });
  const input = within(group).getByRole('textbox', { name: 'Policy file' }) as HTMLInputElement;
  const choices = within(group).getByRole('group', { name: 'Choose the servers to wrap' });
  const checkbox = (name: string) => within(choices).getByRole('checkbox', { name }) as HTMLInputElement;
  /** The runtime's answer: the flow as the store would have it next. */
  const update = (next: WrapFlowState) => result.rerender(element(next));
  return { ...handlers, ...result, group, input, choices, checkbox, update };
}

const previewButton = (group: HTMLElement) => within(group).getByRole('button', { name: 'Preview changes' }) as HTMLButtonElement;

const describedBy = (element: HTMLElement) =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');

describe('WrapFlow', () => {
  it('asks for a required policy file and previews it; Cancel says nothing is written', () => {
    const { input, group, onPreview, onCancel } = renderFlow(flow());
    expect(input.required).toBe(true);
    expect(input.getAttribute('aria-invalid')).toBeNull();
    fireEvent.change(input, { target: { value: POLICY } });
    fireEvent.click(within(group).getByRole('button', { name: 'Preview changes' }));
    expect(onPreview).toHaveBeenCalledWith(POLICY, ['files', 'github']);
    const cancel = within(group).getByRole('button', { name: 'Cancel' });
    expect(describedBy(cancel)).toBe('Nothing is written');
    fireEvent.click(cancel);
    expect(onCancel).toHaveBeenCalledOnce();
    expect(within(group).queryByRole('button', { name: 'Apply' })).toBeNull();
  });

  it("shows the runtime's validation error inline on the input, one error line per item", () => {
    const error = `the policy ${POLICY} is not valid, so a wrapped server would not start; nothing was changed:\n  ${POLICY}:7:3 spec: unknown key "alowed_tools"\n  ${POLICY}:9:1 x (E_CFG_INVALID)`;
    const { input, group } = renderFlow(flow({ phase: 'editing', requestedPolicy: POLICY, error }));
    expect(input.value).toBe(POLICY);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const alert = within(group).getByRole('alert');
    expect(describedBy(input)).toContain(alert.textContent!);
    expect(alert.querySelector('p')!.textContent).toBe(`the policy ${POLICY} is not valid, so a wrapped server would not start; nothing was changed`);
    expect(within(alert).getAllByRole('listitem').map((li) => li.textContent)).toEqual([`${POLICY}:7:3 spec: unknown key "alowed_tools"`, `${POLICY}:9:1 x (E_CFG_INVALID)`]);
  });

  it('waits while the preview is prepared', () => {
    const { input, group, checkbox } = renderFlow(flow({ phase: 'previewing', requestedPolicy: POLICY }));
    expect(input.disabled).toBe(true);
    expect(checkbox('files').disabled).toBe(true);
    expect((within(group).getByRole('button', { name: 'Preview changes' }) as HTMLButtonElement).disabled).toBe(true);
    expect(group.textContent).toContain('Preparing the preview…');
  });

  it('shows the preview: what is wrapped, what stays, the diff, and Apply with its consequence', () => {
    const plan = wrapPlan();
    const { group, onApply } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan }));
    expect(within(group).getByRole('list', { name: 'Servers to wrap' }).textContent).toContain(`files will run through silas proxy with policy ${POLICY}`);
    expect(within(group).getByRole('list', { name: 'Servers left as they are' }).textContent).toBe('linear stays as it is: remote servers (url) are not stdio; the proxy relays stdio only');
    const diff = group.querySelector('pre')!;
    expect(diff.textContent).toBe(plan.diff);
    expect(diff.getAttribute('aria-labelledby') && document.getElementById(diff.getAttribute('aria-labelledby')!)?.textContent).toBe(`Diff of ${CLAUDE_FILE}`);
    const apply = within(group).getByRole('button', { name: 'Apply' });
    expect(describedBy(apply)).toBe(`Rewrites ${CLAUDE_FILE}; a backup is kept; Unwrap restores it byte for byte`);
    fireEvent.click(apply);
    expect(onApply).toHaveBeenCalledOnce();
  });

  it('shows each server\'s starting sandbox under "Sandbox profiles": the policy diff Apply writes, and the notes', () => {
    const own = '/home/ada/.local/share/silas/policies/files.yaml';
    const policyDiff = [`--- ${own}`, `+++ ${own} (sandbox profile)`, '@@ -5,2 +5,6 @@', '   allowed_tools: [read_text_file]', '+  x-silas-sandbox:', '+    filesystem:', '+      write:', '+        - /home/ada/notes'].join('\n');
    const signedNote = `add this to ${POLICY} under spec: (it is signed, and an edit would leave it unsigned):\n  x-silas-sandbox:\n    network:\n      mode: hosts`;
    const plan = wrapPlan({
      wrap: [
        { name: 'files', policy: own },
        { name: 'github', policy: POLICY },
      ],
      sandboxProfiles: [
        { server: 'files', file: own, diff: policyDiff, notes: ['recognised @modelcontextprotocol/server-filesystem', 'may read and write the directories it is given: /home/ada/notes'] },
        { server: 'github', file: POLICY, diff: '', notes: ['recognised @modelcontextprotocol/server-github', signedNote] },
      ],
    });
    const { group } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan }));
    const profiles = within(group).getByRole('region', { name: 'Sandbox profiles' });
    expect(within(profiles).getByRole('heading', { name: 'Sandbox profiles' })).toBeTruthy();
    expect(within(profiles).getByLabelText(`Diff of ${own}`).textContent).toBe(policyDiff);
    expect(profiles.textContent).toContain(`files gets a starting x-silas-sandbox in its policy ${own}`);
    expect(within(profiles).getByRole('list', { name: 'Notes on the sandbox of files' }).textContent).toContain('may read and write the directories it is given: /home/ada/notes');
    expect(profiles.textContent).toContain(`github: its policy ${POLICY} is not changed`);
    const githubNotes = within(profiles).getByRole('list', { name: 'Notes on the sandbox of github' });
    expect(within(githubNotes).getAllByRole('listitem')[1]!.querySelector('pre')!.textContent).toBe('  x-silas-sandbox:\n    network:\n      mode: hosts');
    expect(within(profiles).queryByLabelText(`Diff of ${POLICY}`)).toBeNull();
    expect(describedBy(within(group).getByRole('button', { name: 'Apply' }))).toBe(
      `Rewrites ${CLAUDE_FILE}; a backup is kept; Unwrap restores it byte for byte. Adds the sandbox profiles to ${own}, which Unwrap leaves in place`,
    );
  });

  it('shows no sandbox section when the plan proposes none', () => {
    const { group } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan({ sandboxProfiles: [] }) }));
    expect(within(group).queryByRole('region', { name: 'Sandbox profiles' })).toBeNull();
  });

  it('hides a preview once the policy is edited: another policy needs another preview', () => {
    const { input, group } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan() }));
    fireEvent.change(input, { target: { value: '/home/ada/policies/other.yaml' } });
    expect(within(group).queryByRole('button', { name: 'Apply' })).toBeNull();
    expect(group.querySelector('pre')).toBeNull();
  });

  it('offers no Apply when nothing would change', () => {
    const { group } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan({ diff: '', wrap: [] }) }));
    expect(within(group).queryByRole('button', { name: 'Apply' })).toBeNull();
    expect(group.textContent).toContain(`Nothing to wrap in ${CLAUDE_FILE}; nothing would change.`);
  });

  it('keeps the preview with a failed apply and its message, and waits while writing', () => {
    const writing = renderFlow(flow({ phase: 'applying', requestedPolicy: POLICY, plan: wrapPlan() }));
    expect((within(writing.group).getByRole('button', { name: 'Apply' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(writing.group).getByRole('button', { name: 'Cancel' }) as HTMLButtonElement).disabled).toBe(true);
    expect(writing.group.textContent).toContain('Writing…');
    cleanup();
    const message = `${CLAUDE_FILE} or the policy changed since the preview, so the changes you saw are not the ones that would be written; nothing was changed. Preview the changes again, then apply. (E_BAD_REQUEST)`;
    const { group, input } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan(), error: message }));
    expect(within(group).getByRole('alert').textContent).toBe(message);
    expect(input.getAttribute('aria-invalid')).toBeNull();
    expect(within(group).getByRole('button', { name: 'Apply' })).toBeTruthy();
  });

  it('lists the stdio servers to choose, all checked; wrapped, remote and unknown entries are shown but cannot be chosen', () => {
    const servers = [
      clientServer('files'),
      clientServer('github'),
      clientServer('notes', { wrapped: true, policy: POLICY }),
      clientServer('linear', { transport: 'remote', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }),
      clientServer('odd', { transport: 'unknown', reason: 'neither a command nor a url' }),
    ];
    const { choices, checkbox } = renderFlow(flow(), servers);
    expect(within(choices).getAllByRole('checkbox').map((c) => [c.getAttribute('value'), (c as HTMLInputElement).checked, (c as HTMLInputElement).disabled])).toEqual([
      ['files', true, false],
      ['github', true, false],
      ['notes', false, true],
      ['linear', false, true],
      ['odd', false, true],
    ]);
    expect(checkbox('files').getAttribute('aria-describedby')).toBeNull();
    expect(describedBy(checkbox('notes'))).toBe('already wrapped');
    expect(describedBy(checkbox('linear'))).toBe('not wrappable: remote servers (url) are not stdio; the proxy relays stdio only');
    expect(describedBy(checkbox('odd'))).toBe('not wrappable: neither a command nor a url');
  });

  it('previews only the checked servers', () => {
    const { input, group, checkbox, onPreview } = renderFlow(flow());
    fireEvent.click(checkbox('github'));
    expect(checkbox('github').checked).toBe(false);
    expect(onPreview).not.toHaveBeenCalled();
    fireEvent.change(input, { target: { value: POLICY } });
    fireEvent.click(previewButton(group));
    expect(onPreview).toHaveBeenCalledExactlyOnceWith(POLICY, ['files']);
  });

  it('re-plans a shown preview when a server is unchecked, and applies the servers the preview was made for', () => {
    const { group, checkbox, onPreview, onApply, update } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan() }));
    fireEvent.click(checkbox('files'));
    expect(onPreview).toHaveBeenCalledExactlyOnceWith(POLICY, ['github']);
    update(flow({ phase: 'previewing', requestedPolicy: POLICY }));
    expect(within(group).queryByRole('button', { name: 'Apply' })).toBeNull();
    const plan = wrapPlan({ wrap: [{ name: 'github', policy: POLICY }], skipped: [] });
    update(flow({ phase: 'previewed', requestedPolicy: POLICY, plan }));
    expect(within(group).getByRole('list', { name: 'Servers to wrap' }).textContent).toBe(`github will run through silas proxy with policy ${POLICY}`);
    fireEvent.click(within(group).getByRole('button', { name: 'Apply' }));
    expect(onApply).toHaveBeenCalledExactlyOnceWith(['github']);
  });

  it('with no server checked, there is nothing to preview or apply, and it says to pick one', () => {
    const { group, choices, checkbox, onPreview } = renderFlow(flow({ phase: 'previewed', requestedPolicy: POLICY, plan: wrapPlan() }));
    fireEvent.click(checkbox('files'));
    fireEvent.click(checkbox('github'));
    // Only the first uncheck asked for a plan: an empty selection is never sent.
    expect(onPreview.mock.calls).toEqual([[POLICY, ['github']]]);
    expect(within(group).queryByRole('button', { name: 'Apply' })).toBeNull();
    expect(group.querySelector('pre')).toBeNull();
    const preview = previewButton(group);
    expect(preview.disabled).toBe(true);
    expect(describedBy(preview)).toBe('Pick at least one server to wrap.');
    expect(describedBy(choices)).toBe('Pick at least one server to wrap.');
    fireEvent.submit(preview.closest('form')!);
    expect(onPreview).toHaveBeenCalledOnce();
    fireEvent.click(checkbox('github'));
    expect(onPreview).toHaveBeenLastCalledWith(POLICY, ['github']);
    expect(previewButton(group).disabled).toBe(false);
    expect(group.textContent).not.toContain('Pick at least one server');
  });

  it('cannot select a remote server', () => {
    const { input, group, checkbox, onPreview } = renderFlow(flow());
    const linear = checkbox('linear');
    expect(linear.disabled).toBe(true);
    fireEvent.click(linear);
    expect(linear.checked).toBe(false);
    fireEvent.change(input, { target: { value: POLICY } });
    fireEvent.click(previewButton(group));
    expect(onPreview).toHaveBeenCalledExactlyOnceWith(POLICY, ['files', 'github']);
  });
});
