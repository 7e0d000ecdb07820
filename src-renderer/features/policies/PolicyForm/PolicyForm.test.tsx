import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../../src-shared/contract/index.js';
import { stubRangeLayout } from '../../../testing/codemirror-dom.js';
import { POLICY_PATH, PolicyDisk, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { flushAll, renderPolicies, typeDraft } from '../../../testing/render-policies.js';
import { PolicyEditor } from '../PolicyEditor/PolicyEditor.js';
import { PolicyForm } from './PolicyForm.js';

beforeAll(stubRangeLayout);
afterEach(cleanup);

const MODE_POLICY = VALID_POLICY.replace('spec:\n', 'spec:\n  mode: enforce # strict\n');

type Edit = { text: string; change: Record<string, unknown> };

/** What the fake runtime splices: a mode is replaced in place, anything else appended as a comment line naming the change. */
function splice({ text, change }: Edit): Envelope<{ text: string; notes: string[] }> {
  if (change.kind === 'mode') return { ok: true, value: { text: text.replace(/mode: \w+/, `mode: ${String(change.mode)}`), notes: [] } };
  return { ok: true, value: { text: `${text}# ${JSON.stringify(change)}\n`, notes: [`applied ${String(change.kind)}`] } };
}

async function renderForm(text = MODE_POLICY, edit: (args: Edit) => Envelope<unknown> | Promise<Envelope<unknown>> = splice) {
  const harness = await renderPolicies(
    <>
      <PolicyEditor />
      <PolicyForm />
    </>,
    new PolicyDisk({ [POLICY_PATH]: text }),
  );
  harness.transport.handle('policies.edit', (args) => edit(args as Edit));
  return harness;
}

const form = () => screen.getByRole('region', { name: 'Form' });
const notes = () => within(form()).getByRole('status', { name: 'Form notes' });
const draft = (harness: Awaited<ReturnType<typeof renderForm>>) => harness.store.getState().policyEditor.open?.draft;
/** Waits until CodeMirror (loaded lazily) shows `expected`. */
const editorShows = (expected: string) =>
  waitFor(() => expect(document.querySelector('.policy-code__host')?.shadowRoot?.querySelector('[aria-label="Policy YAML"]')?.textContent).toContain(expected));

describe('PolicyForm', () => {
  it('preselects the mode read off the draft and changes it through policies.edit', async () => {
    const harness = await renderForm();
    const mode = within(form()).getByRole('combobox', { name: 'Mode' }) as HTMLSelectElement;
    expect(mode.value).toBe('enforce');
    await editorShows('mode: enforce # strict');
    fireEvent.change(mode, { target: { value: 'monitor' } });
    await flushAll();
    expect(harness.transport.callsTo('policies.edit')).toEqual([{ text: MODE_POLICY, change: { kind: 'mode', mode: 'monitor' } }]);
    expect(draft(harness)).toBe(MODE_POLICY.replace('mode: enforce', 'mode: monitor'));
    expect(mode.value).toBe('monitor');
    await editorShows('mode: monitor # strict');
  });

  it('shows no mode when the draft sets none', async () => {
    await renderForm(VALID_POLICY);
    expect((within(form()).getByRole('combobox', { name: 'Mode' }) as HTMLSelectElement).value).toBe('');
  });

  it('adds an allowed tool and a protected path, replacing the draft, checking it again and showing the notes', async () => {
    const harness = await renderForm();
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Allow tool' }), { target: { value: ' list_dir ' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add tool' }));
    await flushAll();
    const added = `${MODE_POLICY}# {"kind":"add_item","list":"allowed_tools","value":"list_dir"}\n`;
    expect(draft(harness)).toBe(added);
    await editorShows('"value":"list_dir"');
    expect(harness.transport.callsTo('policies.validate').at(-1)).toEqual({ text: added });
    expect(within(notes()).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['applied add_item']);
    expect((within(form()).getByRole('textbox', { name: 'Allow tool' }) as HTMLInputElement).value).toBe('');

    fireEvent.change(within(form()).getByRole('textbox', { name: 'Protect path' }), { target: { value: '~/.ssh' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add path' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.edit').at(-1)).toEqual({ text: added, change: { kind: 'add_item', list: 'protected_paths', value: '~/.ssh' } });
    expect(draft(harness)).toContain('"list":"protected_paths"');
    // A changed draft can be saved: the form only edits it.
    expect(harness.transport.callsTo('policies.save')).toHaveLength(0);
  });

  it("sets a tool's action", async () => {
    const harness = await renderForm();
    expect(within(form()).getByRole('button', { name: 'Set action' })).toHaveProperty('disabled', true);
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Tool' }), { target: { value: 'write_file' } });
    fireEvent.change(within(form()).getByRole('combobox', { name: 'Action' }), { target: { value: 'block' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Set action' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.edit')).toEqual([{ text: MODE_POLICY, change: { kind: 'tool_action', tool: 'write_file', action: 'block' } }]);
    expect(draft(harness)).toContain('"action":"block"');
  });

  it('adds a DLP pattern with its name and regular expression', async () => {
    const harness = await renderForm();
    const add = within(form()).getByRole('button', { name: 'Add pattern' });
    expect(add).toHaveProperty('disabled', true);
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Pattern name' }), { target: { value: ' Slack token ' } });
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Pattern' }), { target: { value: 'xox[bp]-[0-9A-Za-z-]{10,}' } });
    fireEvent.click(add);
    await flushAll();
    expect(harness.transport.callsTo('policies.edit')).toEqual([{ text: MODE_POLICY, change: { kind: 'dlp_pattern', name: 'Slack token', regex: 'xox[bp]-[0-9A-Za-z-]{10,}' } }]);
    expect(draft(harness)).toContain('"kind":"dlp_pattern"');
    expect((within(form()).getByRole('textbox', { name: 'Pattern' }) as HTMLInputElement).value).toBe('');
  });

  it("shows the runtime's refusal as an alert and leaves the draft alone", async () => {
    const harness = await renderForm(MODE_POLICY, () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'spec.allowed_tools is a flow sequence; edit it in the YAML' } }));
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Allow tool' }), { target: { value: 'list_dir' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add tool' }));
    await flushAll();
    expect(within(form()).getByRole('alert').textContent).toBe('Could not change the draft: spec.allowed_tools is a flow sequence; edit it in the YAML (E_INVALID_ARGS)');
    expect(draft(harness)).toBe(MODE_POLICY);
    expect(within(notes()).queryAllByRole('listitem')).toHaveLength(0);
  });

  it('keeps what the person typed meanwhile rather than an answer for an older draft', async () => {
    let answer: (value: Envelope<unknown>) => void = () => {};
    const harness = await renderForm(MODE_POLICY, (args) => new Promise((resolve) => (answer = () => resolve(splice(args)))));
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Allow tool' }), { target: { value: 'list_dir' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add tool' }));
    expect(notes().textContent).toBe('Changing the draft…');
    typeDraft(harness, `${MODE_POLICY}# mine\n`);
    answer({ ok: true, value: null });
    await flushAll();
    expect(draft(harness)).toBe(`${MODE_POLICY}# mine\n`);
    expect(within(form()).getByRole('alert').textContent).toContain('The draft changed while the change was being made');
  });
});
