import { currentCompletions, startCompletion } from '@codemirror/autocomplete';
import { EditorView } from '@codemirror/view';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PolicyDiagnostic } from '../../../store/policy-editor-state.js';
import { stubRangeLayout } from '../../../testing/codemirror-dom.js';
import { POLICY_EDITOR_LABEL, PolicyCodeEditor } from './PolicyCodeEditor.js';

beforeAll(stubRangeLayout);
afterEach(cleanup);

const TEXT = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: demo\nspec:\n  alowed_tools: [read_file]\n';
const typo: PolicyDiagnostic = { path: 'spec.alowed_tools', line: 6, column: 3, message: 'unknown key "alowed_tools" in spec (did you mean "allowed_tools"?)', severity: 'error' };
const warning: PolicyDiagnostic = { path: 'spec', line: 5, column: 1, message: 'no tool is allowed', severity: 'warning' };

/** The editable content inside the editor's shadow root, once CodeMirror has loaded. */
async function content(): Promise<HTMLElement> {
  const host = await waitFor(() => {
    const found = document.querySelector('.policy-code__host');
    if (!found?.shadowRoot?.querySelector('[contenteditable]')) throw new Error('editor not mounted yet');
    return found;
  });
  return within(host.shadowRoot as unknown as HTMLElement).getByRole('textbox', { name: POLICY_EDITOR_LABEL });
}

describe('PolicyCodeEditor', () => {
  it('mounts CodeMirror with its accessible name and text, and reports the diagnostics it marks', async () => {
    const { rerender } = render(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={null} onChange={vi.fn()} />);
    expect(screen.getByText('Loading the editor…')).toBeTruthy();
    const editable = await content();
    expect(editable.getAttribute('contenteditable')).toBe('true');
    expect(editable.textContent).toContain('alowed_tools: [read_file]');
    expect(screen.queryByText('Loading the editor…')).toBeNull();

    rerender(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={[typo, warning]} onChange={vi.fn()} />);
    expect(await screen.findByText('2 problems marked in the editor')).toBeTruthy();
    rerender(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={[]} onChange={vi.fn()} />);
    expect(await screen.findByText('Nothing marked in the editor')).toBeTruthy();
  });

  it('takes text replaced from outside when the revision changes, without reporting it as an edit', async () => {
    const onChange = vi.fn();
    const { rerender } = render(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={null} onChange={onChange} />);
    await content();
    const restored = TEXT.replace('alowed_tools', 'allowed_tools');
    await act(async () => rerender(<PolicyCodeEditor text={restored} revision={2} diagnostics={null} onChange={onChange} />));
    expect((await content()).textContent).toContain('allowed_tools: [read_file]');
    expect(onChange).not.toHaveBeenCalled();
  });

  it('reports edits typed by the person, and completes AgentPolicy keys from the schema', async () => {
    const onChange = vi.fn();
    render(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={null} onChange={onChange} />);
    const view = EditorView.findFromDOM((await content()).closest('.cm-editor') as HTMLElement)!;
    const typed = `${TEXT}  stri`;
    act(() => view.dispatch({ changes: { from: view.state.doc.length, insert: '  stri' }, selection: { anchor: typed.length }, userEvent: 'input.type' }));
    expect(onChange).toHaveBeenLastCalledWith(typed);
    act(() => {
      startCompletion(view);
    });
    await waitFor(() => expect(currentCompletions(view.state).map((option) => option.label)).toEqual(['strict_args_default']));

    // Asked for at the start of a key in spec, every key of spec is offered.
    act(() => view.dispatch({ changes: { from: typed.length - 4, to: typed.length }, selection: { anchor: typed.length - 4 } }));
    act(() => {
      startCompletion(view);
    });
    await waitFor(() => expect(currentCompletions(view.state).map((option) => option.label)).toEqual(expect.arrayContaining(['allowed_tools', 'tool_rules', 'dlp', 'mode'])));
    expect(currentCompletions(view.state).map((option) => option.label)).not.toContain('apiVersion');
  });

  it('applies text typed over a selection itself, so the browser never writes style attributes the CSP refuses', async () => {
    const onChange = vi.fn();
    render(<PolicyCodeEditor text={TEXT} revision={1} diagnostics={null} onChange={onChange} />);
    const editable = await content();
    const view = EditorView.findFromDOM(editable.closest('.cm-editor') as HTMLElement)!;
    act(() => view.dispatch({ selection: { anchor: 0, head: view.state.doc.length } }));
    const typed = new InputEvent('beforeinput', { inputType: 'insertText', data: 'x', bubbles: true, cancelable: true });
    act(() => {
      editable.dispatchEvent(typed);
    });
    expect(typed.defaultPrevented).toBe(true);
    expect(onChange).toHaveBeenLastCalledWith('x');

    // Typing at a caret is left to the browser and CodeMirror's own reading of it.
    const atCaret = new InputEvent('beforeinput', { inputType: 'insertText', data: 'y', bubbles: true, cancelable: true });
    act(() => {
      editable.dispatchEvent(atCaret);
    });
    expect(atCaret.defaultPrevented).toBe(false);
  });
});
