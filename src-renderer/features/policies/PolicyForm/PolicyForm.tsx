import { useId, useState, type FormEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { draftMode, POLICY_MODES, TOOL_ACTIONS, type PolicyMode, type ToolAction } from '../policy-form-format.js';

interface AddItemProps {
  label: string;
  button: string;
  placeholder: string;
  busy: boolean;
  onAdd(value: string): void;
}

/** A textbox and its button: one value added to a list of the policy. */
function AddItem({ label, button, placeholder, busy, onAdd }: AddItemProps) {
  const id = useId();
  const [value, setValue] = useState('');
  function submit(event: FormEvent): void {
    event.preventDefault();
    onAdd(value.trim());
    setValue('');
  }
  return (
    <form className="bench-form" aria-label={label} onSubmit={submit}>
      <div className="bench-form__field">
        <label htmlFor={id}>{label}</label>
        <input id={id} className="bench-form__input" value={value} onChange={(e) => setValue(e.target.value)} placeholder={placeholder} spellCheck={false} autoComplete="off" />
      </div>
      <button type="submit" className="button" disabled={busy || value.trim() === ''}>
        {button}
      </button>
    </form>
  );
}

/**
 * The form view beside the YAML: each control asks the runtime to splice one change into the
 * draft (`policies.edit`), which then replaces the editor's text. Nothing is saved from here.
 */
export function PolicyForm() {
  const headingId = useId();
  const modeId = useId();
  const toolId = useId();
  const actionId = useId();
  const mode = useCockpit((s) => draftMode(s.policyEditor.open?.draft ?? ''));
  const pending = useCockpit((s) => s.policyEditor.form.pending);
  const notes = useCockpit((s) => s.policyEditor.form.notes);
  const error = useCockpit((s) => s.policyEditor.form.error);
  const { applyPolicyChange } = useCockpitActions();
  const [tool, setTool] = useState('');
  const [action, setAction] = useState<ToolAction>('ask');
  const patternNameId = useId();
  const patternId = useId();
  const [patternName, setPatternName] = useState('');
  const [pattern, setPattern] = useState('');

  function addPattern(event: FormEvent): void {
    event.preventDefault();
    applyPolicyChange({ kind: 'dlp_pattern', name: patternName.trim(), regex: pattern });
    setPatternName('');
    setPattern('');
  }

  function setToolAction(event: FormEvent): void {
    event.preventDefault();
    applyPolicyChange({ kind: 'tool_action', tool: tool.trim(), action });
  }

  return (
    <section className="policy-form" aria-labelledby={headingId}>
      <h2 id={headingId}>Form</h2>
      <p className="test-bench__lead">Each change is made to the draft in the editor, keeping its comments and layout. Nothing is saved until you choose Save and sign.</p>
      <div className="bench-form">
        <div className="bench-form__field">
          <label htmlFor={modeId}>Mode</label>
          <select
            id={modeId}
            className="bench-form__input"
            value={mode ?? ''}
            disabled={pending}
            onChange={(e) => applyPolicyChange({ kind: 'mode', mode: e.target.value as PolicyMode })}
          >
            {mode === null ? (
              <option value="" disabled>
                Not set
              </option>
            ) : null}
            {POLICY_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
      </div>
      <AddItem label="Allow tool" button="Add tool" placeholder="read_file" busy={pending} onAdd={(value) => applyPolicyChange({ kind: 'add_item', list: 'allowed_tools', value })} />
      <AddItem label="Protect path" button="Add path" placeholder="~/.ssh" busy={pending} onAdd={(value) => applyPolicyChange({ kind: 'add_item', list: 'protected_paths', value })} />
      <form className="bench-form" aria-label="DLP pattern" onSubmit={addPattern}>
        <div className="bench-form__field">
          <label htmlFor={patternNameId}>Pattern name</label>
          <input id={patternNameId} className="bench-form__input" value={patternName} onChange={(e) => setPatternName(e.target.value)} placeholder="Slack token" spellCheck={false} autoComplete="off" />
        </div>
        <div className="bench-form__field">
          <label htmlFor={patternId}>Pattern</label>
          <input id={patternId} className="bench-form__input" value={pattern} onChange={(e) => setPattern(e.target.value)} placeholder="xox[bp]-[0-9A-Za-z-]{10,}" spellCheck={false} autoComplete="off" />
        </div>
        <button type="submit" className="button" disabled={pending || patternName.trim() === '' || pattern === ''}>
          Add pattern
        </button>
      </form>
      <form className="bench-form" aria-label="Tool action" onSubmit={setToolAction}>
        <div className="bench-form__field">
          <label htmlFor={toolId}>Tool</label>
          <input id={toolId} className="bench-form__input" value={tool} onChange={(e) => setTool(e.target.value)} placeholder="write_file" spellCheck={false} autoComplete="off" />
        </div>
        <div className="bench-form__field">
          <label htmlFor={actionId}>Action</label>
          <select id={actionId} className="bench-form__input" value={action} onChange={(e) => setAction(e.target.value as ToolAction)}>
            {TOOL_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button" disabled={pending || tool.trim() === ''}>
          Set action
        </button>
      </form>
      <div role="status" aria-label="Form notes" className="policy-form__notes">
        {pending ? <p>Changing the draft…</p> : null}
        {notes.length > 0 ? (
          <ul>
            {notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        ) : null}
      </div>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not change the draft: {error}
        </p>
      ) : null}
    </section>
  );
}
