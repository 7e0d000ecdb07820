import { useId, useState } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { policyNameProblem, type PolicyTemplateView } from '../../../store/policy-gallery-state.js';

interface TemplateChoiceProps {
  template: PolicyTemplateView;
  chosen: boolean;
  onChoose(): void;
}

function TemplateChoice({ template, chosen, onChoose }: TemplateChoiceProps) {
  const summaryId = useId();
  return (
    <li className={`policy-template${chosen ? ' policy-template--chosen' : ''}`}>
      <label className="policy-template__title">
        <input type="radio" name="policy-template" value={template.id} checked={chosen} onChange={onChoose} aria-describedby={summaryId} />
        {template.title}
      </label>
      <p className="policy-template__server">{template.server}</p>
      <p id={summaryId} className="policy-template__summary">
        {template.summary} <span className="policy-template__cases">Its test suite has {template.cases} cases.</span>
      </p>
      <details className="policy-template__preview">
        <summary>Preview {template.title}</summary>
        <pre tabIndex={0} aria-label={`The policy of ${template.title}`}>
          {template.policyText}
        </pre>
      </details>
    </li>
  );
}

/**
 * Starting policies for common servers (docs/policy-templates.md): one is made into
 * HOME/policies/NAME.yaml, signed, with its test suite beside it, and opened in the editor.
 */
export function TemplateGallery() {
  const headingId = useId();
  const nameId = useId();
  const problemId = useId();
  const shown = useCockpit((s) => s.policyEditor.gallery.shown);
  const templates = useCockpit((s) => s.policyEditor.gallery.templates);
  const status = useCockpit((s) => s.policyEditor.gallery.status);
  const error = useCockpit((s) => s.policyEditor.gallery.error);
  const creating = useCockpit((s) => s.policyEditor.gallery.creating);
  const message = useCockpit((s) => s.policyEditor.gallery.message);
  const { showPolicyGallery, createPolicyFromTemplate } = useCockpitActions();
  const [chosen, setChosen] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const problem = name === '' ? null : policyNameProblem(name);

  function choose(id: string): void {
    setChosen(id);
    if (!nameTouched) setName(id);
  }

  return (
    <section className="policy-gallery" aria-labelledby={headingId}>
      <div className="policy-gallery__head">
        <h2 id={headingId}>New policy from a template</h2>
        <button type="button" className="button button--quiet" aria-expanded={shown} onClick={() => showPolicyGallery(!shown)}>
          {shown ? 'Hide the templates' : 'Show the templates'}
        </button>
      </div>
      {!shown ? null : (
        <form
          className="policy-gallery__form"
          onSubmit={(event) => {
            event.preventDefault();
            if (chosen) createPolicyFromTemplate(name, chosen);
          }}
        >
          {error ? (
            <p role="alert" className="notice notice--error">
              Could not load the templates: {error}
            </p>
          ) : null}
          {status === 'loading' ? <p className="policy-files__opening">Loading the templates…</p> : null}
          <fieldset className="policy-gallery__templates">
            <legend>Template</legend>
            <ul>
              {templates.map((template) => (
                <TemplateChoice key={template.id} template={template} chosen={chosen === template.id} onChoose={() => choose(template.id)} />
              ))}
            </ul>
          </fieldset>
          <label htmlFor={nameId}>Name of the new policy</label>
          <input
            id={nameId}
            className="policy-gallery__name"
            value={name}
            spellCheck={false}
            aria-invalid={problem !== null}
            aria-describedby={problemId}
            onChange={(event) => {
              setName(event.target.value);
              setNameTouched(true);
            }}
          />
          <p id={problemId} className={problem ? 'policy-gallery__problem' : 'policy-gallery__hint'}>
            {problem ?? (name ? `Saved as policies/${name}.yaml in your Silas home, with ${name}.suite.json beside it` : 'Choose a template, then a name')}
          </p>
          <button type="submit" className="button" disabled={chosen === null || name === '' || problem !== null || creating}>
            {creating ? 'Creating…' : 'Create and open'}
          </button>
          {message ? (
            <p role={message.error ? 'alert' : 'status'} className={message.error ? 'notice notice--error' : 'policy-gallery__done'}>
              {message.text}
            </p>
          ) : null}
        </form>
      )}
    </section>
  );
}
