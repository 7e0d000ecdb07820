import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { PolicyDiagnostic } from '../../../store/policy-editor-state.js';
import type { PolicyEditorHandle } from './codemirror-setup.js';
import { markedText } from '../policy-editor-format.js';

/** The accessible name of the editor's text (a stable locator for end-to-end tests). */
export const POLICY_EDITOR_LABEL = 'Policy YAML';

/** CodeMirror and the policy schema arrive in their own chunk, when a policy is first opened. */
const loadEditor = () => import('./codemirror-setup.js');

export interface PolicyCodeEditorProps {
  text: string;
  /** Changes when `text` was replaced from outside the editor, which then shows it. */
  revision: number;
  /** The runtime's diagnostics for exactly `text`; null while that text has not been checked (marks already shown move with the edits). */
  diagnostics: readonly PolicyDiagnostic[] | null;
  onChange(text: string): void;
}

/**
 * A thin React wrapper around the CodeMirror view of codemirror-setup.ts: it creates the view once,
 * hands it replaced text and fresh diagnostics, and reports the person's edits. All the logic
 * around it (debounced validation, save rules) lives in the store and lib/cockpit/policies.ts.
 */
export function PolicyCodeEditor({ text, revision, diagnostics, onChange }: PolicyCodeEditorProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const handleRef = useRef<PolicyEditorHandle | null>(null);
  const latest = useRef({ text, onChange });
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [marked, setMarked] = useState<number | null>(null);

  useLayoutEffect(() => {
    latest.current = { text, onChange };
  });

  useEffect(() => {
    let disposed = false;
    loadEditor().then(
      ({ createPolicyEditor }) => {
        if (disposed || !hostRef.current) return;
        handleRef.current = createPolicyEditor(hostRef.current, { text: latest.current.text, label: POLICY_EDITOR_LABEL, onChange: (next) => latest.current.onChange(next) });
        setReady(true);
      },
      (error: unknown) => {
        if (!disposed) setLoadError(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      disposed = true;
      handleRef.current?.destroy();
      handleRef.current = null;
    };
  }, []);

  useEffect(() => {
    if (ready) handleRef.current?.setText(latest.current.text);
  }, [ready, revision]);

  useEffect(() => {
    if (ready && diagnostics && handleRef.current) setMarked(handleRef.current.setDiagnostics(diagnostics));
  }, [ready, diagnostics]);

  return (
    <div className="policy-code">
      {loadError ? (
        <p role="alert" className="notice notice--error">
          Could not load the editor: {loadError}
        </p>
      ) : null}
      {!ready && !loadError ? <p className="policy-code__loading">Loading the editor…</p> : null}
      <div ref={hostRef} className="policy-code__host" />
      {ready && marked !== null ? <p className="policy-code__marks">{markedText(marked)}</p> : null}
    </div>
  );
}
