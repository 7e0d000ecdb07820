import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { currentValidation } from '../../../store/policy-editor-state.js';
import { PolicyCodeEditor } from '../PolicyCodeEditor/PolicyCodeEditor.js';
import { Problems } from '../Problems/Problems.js';
import { SaveBar } from '../SaveBar/SaveBar.js';
import { fileName, signatureLabel, signatureTone, validationText } from '../policy-editor-format.js';

/** The open policy: its YAML in CodeMirror, checked by the runtime as the person types, and saved signed. */
export function PolicyEditor() {
  const headingId = useId();
  const path = useCockpit((s) => s.policyEditor.open?.path ?? '');
  const signature = useCockpit((s) => s.policyEditor.open?.status.signature ?? 'unsigned');
  const draft = useCockpit((s) => s.policyEditor.open?.draft ?? '');
  const revision = useCockpit((s) => s.policyEditor.open?.revision ?? 0);
  const fresh = useCockpit((s) => currentValidation(s.policyEditor));
  const last = useCockpit((s) => s.policyEditor.validation);
  const validating = useCockpit((s) => s.policyEditor.validating);
  const validateError = useCockpit((s) => s.policyEditor.validateError);
  const { editPolicy, closePolicy } = useCockpitActions();
  const name = fileName(path);

  return (
    <section className="policy-editor" aria-labelledby={headingId}>
      <div className="policy-editor__head">
        <h2 id={headingId}>Editing {name}</h2>
        <span className={`policy-badge policy-badge--${signatureTone(signature)}`}>{signatureLabel(signature)}</span>
        <code className="policy-file__path">{path}</code>
        <button type="button" className="button button--quiet policy-editor__close" onClick={closePolicy}>
          Close the editor
        </button>
      </div>
      <PolicyCodeEditor text={draft} revision={revision} diagnostics={fresh?.diagnostics ?? null} onChange={editPolicy} />
      <p className="policy-editor__check">{validationText(fresh, validating || fresh === null)}</p>
      {validateError ? (
        <p role="alert" className="notice notice--error">
          Could not check the draft: {validateError}
        </p>
      ) : null}
      <Problems diagnostics={fresh?.diagnostics ?? last?.diagnostics ?? null} stale={fresh === null} />
      <SaveBar />
    </section>
  );
}
