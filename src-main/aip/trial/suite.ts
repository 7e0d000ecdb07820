import { jsonErrorAt } from '../../../src-shared/json-position.js';
import { z } from 'zod';
import { JsonObject } from '../../../src-shared/schemas/json.js';

/*
 * A policy's test suite (docs/policy-editor.md "Test bench"): calls with the outcome the person
 * expects, kept beside the policy (`POLICY.suite.json`). `silas policy test` and the cockpit's test
 * bench run it against a draft; every mistake names its line (bad JSON) or its JSON path (a wrong
 * field).
 */

const EXPECTABLE = ['ALLOW', 'BLOCK', 'ASK', 'RATE_LIMITED', 'ALLOW_MONITOR'] as const;
export const ExpectedDecision = z.enum(EXPECTABLE, { error: `expected one of ${EXPECTABLE.join(', ')}` });
export type ExpectedDecision = z.infer<typeof ExpectedDecision>;

const SuiteCall = z.strictObject({
  name: z.string({ error: 'expected a short name for the case' }).min(1).max(200),
  method: z.string().min(1).max(200).default('tools/call'),
  tool: z.string({ error: 'expected the tool name' }).min(1).max(500).optional(),
  args: JsonObject.default({}),
  /** `previous_calls` (rate limits) and `user_response` (deny|timeout|approve answers an ASK), as in `silas policy eval`. */
  context: z.strictObject({ previous_calls: z.number().int().min(0).max(1_000_000).optional(), user_response: z.enum(['deny', 'timeout', 'approve']).optional() }).default({}),
  expect: ExpectedDecision,
});

export const PolicySuite = z.strictObject({
  /** What the suite is about, shown with its results. */
  description: z.string().max(2000).optional(),
  calls: z.array(SuiteCall, { error: 'expected "calls": a list of {name, tool, args, expect}' }).min(1, { error: 'a suite needs at least one call' }).max(10_000),
});
export type PolicySuite = z.infer<typeof PolicySuite>;

export type SuiteParse = { ok: true; suite: PolicySuite } | { ok: false; problem: string };

const MAX_SUITE_BYTES = 16 * 1024 * 1024;

/** The suite in `text`, or what is wrong with it: the line and column of bad JSON, the JSON path of a wrong field. */
export function parseSuite(text: string, file: string): SuiteParse {
  if (Buffer.byteLength(text, 'utf8') > MAX_SUITE_BYTES) return { ok: false, problem: `${file}: larger than ${MAX_SUITE_BYTES} bytes; split the suite` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${file}: ${jsonErrorAt(text)}` };
  }
  const parsed = PolicySuite.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`)).join('');
    const detail = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}` : issue.message;
    return { ok: false, problem: `${file}: $${path}: ${detail}` };
  }
  return { ok: true, suite: parsed.data };
}
