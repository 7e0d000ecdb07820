import { AlignmentCard } from './card.js';
import { STANDARD_VALUES } from './constants.js';
import { issuesFromZod, formatPath, type ValidationIssue } from './issues.js';

/*
 * Everything a card must satisfy before it is activated: the JSON Schema (card.ts), then the rules
 * of spec 003 §4 the schema cannot state. A card that fails here is never made active; the one in
 * force stays, so a bad card can never take the place of a good one.
 */

export interface CardValidationOptions {
  /** The time expiry and issuance are judged at. */
  now: Date;
  /** How far `issued_at` may lie ahead of `now` before it counts as the future (clock skew). Default 5 minutes. */
  clockSkewMs?: number;
  /**
   * Compiles one §4.6 condition and returns why it does not parse, or null. The runtime passes the
   * RE2-backed compiler (src-main/aap/conditions); without it conditions are not checked here.
   */
  checkCondition?: (condition: string) => string | null;
}

export interface CardValidation {
  ok: boolean;
  /** The card when it matches the schema, even if other rules fail (verification can still report on it). */
  card: AlignmentCard | null;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

const DEFAULT_CLOCK_SKEW_MS = 5 * 60_000;
const STANDARD = new Set(STANDARD_VALUES);

function duplicates(list: readonly string[]): Map<string, number> {
  const seen = new Set<string>();
  const repeated = new Map<string, number>();
  list.forEach((item, index) => {
    if (seen.has(item) && !repeated.has(item)) repeated.set(item, index);
    seen.add(item);
  });
  return repeated;
}

function checkIdentity(card: AlignmentCard, errors: ValidationIssue[]): void {
  for (const key of ['card_id', 'agent_id'] as const) {
    if (card[key].trim() === '') errors.push({ path: key, message: 'must not be empty', expected: 'a non-empty identifier (UUID, URI or DID)' });
  }
}

function checkTimes(card: AlignmentCard, options: CardValidationOptions, errors: ValidationIssue[]): void {
  const now = options.now.getTime();
  const issued = Date.parse(card.issued_at);
  const skew = options.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  if (issued > now + skew) errors.push({ path: 'issued_at', message: `${card.issued_at} is in the future (now ${options.now.toISOString()})`, expected: 'a time not after now' });
  if (card.expires_at == null) return;
  const expires = Date.parse(card.expires_at);
  if (expires <= issued) errors.push({ path: 'expires_at', message: `${card.expires_at} is not after issued_at ${card.issued_at}`, expected: 'a time after issued_at' });
  else if (expires <= now) errors.push({ path: 'expires_at', message: `the card expired at ${card.expires_at} (now ${options.now.toISOString()})`, expected: 'a time after now' });
}

function checkValues(card: AlignmentCard, errors: ValidationIssue[], warnings: ValidationIssue[]): void {
  const { declared, definitions, conflicts_with: conflicts } = card.values;
  declared.forEach((value, index) => {
    if (!STANDARD.has(value) && !(definitions && Object.hasOwn(definitions, value))) {
      errors.push({
        path: `values.declared[${index}]`,
        message: `custom value "${value}" is not defined in values.definitions (§4.4: custom values MUST be defined)`,
        expected: `a standard value (${STANDARD_VALUES.join(', ')}) or an entry ${formatPath(['values', 'definitions', value])} with name and description`,
      });
    }
  });
  for (const [value, index] of duplicates(declared)) warnings.push({ path: `values.declared[${index}]`, message: `"${value}" is declared twice` });
  const declaredSet = new Set(declared);
  for (const key of Object.keys(definitions ?? {})) {
    if (!declaredSet.has(key)) warnings.push({ path: formatPath(['values', 'definitions', key]), message: `defines "${key}", which values.declared does not list` });
  }
  (conflicts ?? []).forEach((value, index) => {
    if (declaredSet.has(value)) errors.push({ path: `values.conflicts_with[${index}]`, message: `"${value}" is both declared and listed as conflicting`, expected: 'a value the card does not declare' });
  });
}

function checkEnvelope(card: AlignmentCard, options: CardValidationOptions, errors: ValidationIssue[], warnings: ValidationIssue[]): void {
  const envelope = card.autonomy_envelope;
  const bounded = new Set(envelope.bounded_actions);
  (envelope.forbidden_actions ?? []).forEach((action, index) => {
    if (bounded.has(action)) errors.push({ path: `autonomy_envelope.forbidden_actions[${index}]`, message: `"${action}" is both bounded and forbidden`, expected: 'an action not in bounded_actions' });
  });
  for (const [action, index] of duplicates(envelope.bounded_actions)) warnings.push({ path: `autonomy_envelope.bounded_actions[${index}]`, message: `"${action}" is listed twice` });
  envelope.escalation_triggers.forEach((trigger, index) => {
    const problem = options.checkCondition?.(trigger.condition) ?? null;
    if (problem !== null) errors.push({ path: `autonomy_envelope.escalation_triggers[${index}].condition`, message: problem, expected: 'a condition in the §4.6 language, e.g. amount > 100 or action_type == "purchase"' });
  });
  const limit = envelope.max_autonomous_value;
  if (limit) {
    if (limit.amount < 0) errors.push({ path: 'autonomy_envelope.max_autonomous_value.amount', message: `${limit.amount} is negative`, expected: 'an amount of zero or more' });
    if (limit.currency !== undefined && !/^[A-Z]{3}$/.test(limit.currency)) warnings.push({ path: 'autonomy_envelope.max_autonomous_value.currency', message: `"${limit.currency}" is not an ISO 4217 code` });
  }
}

function checkAudit(card: AlignmentCard, errors: ValidationIssue[]): void {
  const audit = card.audit_commitment;
  if (audit.queryable && !audit.query_endpoint) {
    errors.push({ path: 'audit_commitment.query_endpoint', message: 'missing while queryable is true (§4.7: required if queryable)', expected: 'the endpoint where traces can be queried' });
  }
}

/** §4.2 and §4.7 call these REQUIRED; the JSON Schema gives them defaults instead, so their absence only warns. */
function checkDefaulted(card: AlignmentCard, warnings: ValidationIssue[]): void {
  if (card.aap_version === undefined) warnings.push({ path: 'aap_version', message: 'missing; §4.2 requires it (the schema assumes "0.1.0")' });
  if (card.audit_commitment.trace_format === undefined) warnings.push({ path: 'audit_commitment.trace_format', message: 'missing; §4.7 requires it (the schema assumes "ap-trace-v1")' });
}

function checkExtensions(card: AlignmentCard, warnings: ValidationIssue[]): void {
  for (const [name, value] of Object.entries(card.extensions ?? {})) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      warnings.push({ path: formatPath(['extensions', name]), message: 'extensions are namespaced by protocol (§4.8); expected an object' });
    }
  }
}

export function validateAlignmentCard(input: unknown, options: CardValidationOptions): CardValidation {
  const parsed = AlignmentCard.safeParse(input);
  if (!parsed.success) return { ok: false, card: null, errors: issuesFromZod(parsed.error, input), warnings: [] };
  const card = parsed.data;
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  checkIdentity(card, errors);
  checkTimes(card, options, errors);
  checkValues(card, errors, warnings);
  checkEnvelope(card, options, errors, warnings);
  checkAudit(card, errors);
  checkDefaulted(card, warnings);
  checkExtensions(card, warnings);
  return { ok: errors.length === 0, card, errors, warnings };
}
