import type { PolicyDiagnostic, PolicyValidateResult } from '../../../src-shared/schemas/policy-editor.js';
import { loadPolicyText } from '../policy/load.js';

const MAX_DIAGNOSTICS = 500;

/**
 * A draft as the editor sees it (docs/policy-editor.md "Validation as the person types"): the
 * loader that enforces policies checks it, so what the editor underlines is exactly what would stop
 * the policy from loading. A signature is not verified here (a draft being edited is unsigned by
 * definition); saving signs it.
 */
export function validatePolicyDraft(text: string): PolicyValidateResult {
  const started = performance.now();
  const loaded = loadPolicyText(text, { draft: true });
  const took_ms = performance.now() - started;
  const diagnostics: PolicyDiagnostic[] = loaded.ok
    ? loaded.warningsAt.map((warning) => ({ ...position(warning), severity: 'warning' as const }))
    : loaded.errors.map((error) => ({ ...position(error), severity: 'error' as const }));
  return { ok: loaded.ok, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS), hash: loaded.ok ? loaded.policy.hash : null, took_ms };
}

function position(problem: { path: string; line: number; column: number; message: string }): Omit<PolicyDiagnostic, 'severity'> {
  return { path: problem.path.slice(0, 2000), line: problem.line, column: problem.column, message: problem.message.slice(0, 5000) };
}
