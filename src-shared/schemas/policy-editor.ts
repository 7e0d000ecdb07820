import { z } from 'zod';

/*
 * The policy editor's calls (issue 14): a draft is validated by the runtime's own loader as the
 * person types (never a second parser in the renderer), and every problem comes back at its line
 * and column with the loader's message ("did you mean …").
 */

export const MAX_POLICY_DRAFT_CHARS = 1024 * 1024;

export const PolicyDiagnostic = z.strictObject({
  path: z.string().max(2000),
  line: z.number().int().nonnegative(),
  column: z.number().int().nonnegative(),
  message: z.string().max(5000),
  severity: z.enum(['error', 'warning']),
});
export type PolicyDiagnostic = z.infer<typeof PolicyDiagnostic>;

export const PolicyValidateArgs = z.strictObject({
  text: z.string({ error: 'expected the policy YAML as text' }).max(MAX_POLICY_DRAFT_CHARS, { error: `a policy has at most ${MAX_POLICY_DRAFT_CHARS} characters` }),
});

export const PolicyValidateResult = z.strictObject({
  /** The draft loads: it could be saved and enforced. */
  ok: z.boolean(),
  diagnostics: z.array(PolicyDiagnostic).max(500),
  /** §5.2 policy hash of a draft that loads. */
  hash: z.string().max(100).nullable(),
  /** Milliseconds the loader took, for the editor's status line. */
  took_ms: z.number().nonnegative(),
});
export type PolicyValidateResult = z.infer<typeof PolicyValidateResult>;
