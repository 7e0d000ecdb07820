import { join } from 'node:path';
import { z } from 'zod';
import { formatIssue } from '../../../src-shared/aap/issues.js';
import { ApTrace } from '../../../src-shared/aap/trace.js';
import { validateApTrace } from '../../../src-shared/aap/validate-trace.js';
import { compileAlignmentCard } from '../card.js';
import { checkCoherence, type CoherenceParty } from '../coherence.js';
import { detectDrift } from '../drift.js';
import { readJsonFile } from '../files.js';
import { locateCard, locateTrace, locateTraces, reroot } from '../inputs.js';
import { validateCardDocument } from '../load.js';
import { verifyTrace } from '../verify.js';
import type { CardExpectation, CoherenceExpectation, DriftExpectation, RecordedCoherenceExpectation, TracesExpectation, VerifyExpectation } from './expected.js';
import { schemaDisagreements } from './schema-agreement.js';

/*
 * One function per kind of expectation. Each returns a one-line summary when the file meets it
 * and throws a CaseFailure saying what differs when it does not. Numbers are compared after
 * rounding to 4 decimals, as the README prescribes.
 */

export class CaseFailure extends Error {}

export interface CaseContext {
  root: string;
  now: Date;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const same4 = (actual: number, expected: number) => Math.abs(round4(actual) - expected) < 1e-9;
const fail = (message: string): never => {
  throw new CaseFailure(message);
};
const list = (items: readonly unknown[]) => JSON.stringify(items);

/** Values are all coherence needs; partial cards (the playground's) have them too. */
const CoherenceCard = z.object({ card_id: z.string(), values: z.object({ declared: z.array(z.string()), conflicts_with: z.array(z.string()).nullish() }) });

function coherenceParty(value: unknown, source: string): CoherenceParty {
  const parsed = CoherenceCard.safeParse(value);
  return parsed.success ? parsed.data : fail(`${source}: no card_id and values.declared to compare`);
}

function compiledCard(document: unknown, source: string) {
  const located = locateCard(document);
  const compiled = compileAlignmentCard(located.value);
  if (!compiled.ok) fail(`${source}: card does not compile: ${reroot(compiled.errors, located.at).map(formatIssue).join('; ')}`);
  return (compiled as Extract<typeof compiled, { ok: true }>).compiled;
}

function traces(document: unknown): ApTrace[] {
  return locateTraces(document).map((located) => ApTrace.parse(located.value));
}

export function checkSchema(document: unknown): string {
  const problems = schemaDisagreements(document);
  if (problems.length > 0) fail(problems.join('; '));
  return 'our models have the same members, required members and enums';
}

export function checkCard(document: unknown, expectation: CardExpectation, context: CaseContext): string {
  const member = expectation.member;
  const validation = validateCardDocument(member ? (document as Record<string, unknown>)[member] : document, context.now);
  if (member) validation.errors = reroot(validation.errors, [member]);
  const schemaValid = validation.card !== null;
  if (schemaValid !== expectation.schemaValid) fail(`schema: expected ${expectation.schemaValid ? 'valid' : 'invalid'}, got ${schemaValid ? 'valid' : `invalid (${validation.errors.map(formatIssue).join('; ')})`}`);
  const paths = validation.errors.map((e) => e.path);
  if (paths.length !== expectation.errorPaths.length || !expectation.errorPaths.every((p) => paths.includes(p))) {
    fail(`errors at ${list(paths)}, expected at ${list(expectation.errorPaths)}: ${validation.errors.map(formatIssue).join('; ')}`);
  }
  return paths.length === 0 ? 'valid' : `schema ${schemaValid ? 'valid' : 'invalid'}; refused at ${paths.join(', ')}`;
}

export function checkTraces(document: unknown, expectation: TracesExpectation): string {
  const located = locateTraces(document);
  if (located.length !== expectation.count) fail(`${located.length} traces, expected ${expectation.count}`);
  const problems = located.flatMap((l) => {
    const validation = validateApTrace(l.value);
    return validation.ok ? [] : reroot(validation.errors, l.at).map(formatIssue);
  });
  if (problems.length > 0) fail(`invalid traces: ${problems.join('; ')}`);
  return `${located.length} valid trace${located.length === 1 ? '' : 's'}`;
}

export function checkVerify(document: unknown, expectation: VerifyExpectation, context: CaseContext): string {
  const compiled = compiledCard(document, 'card');
  const trace = ApTrace.parse(locateTrace(document).value);
  const result = verifyTrace(trace, compiled, { now: context.now });
  const violations = result.violations.map((v) => v.type);
  const warnings = result.warnings.map((w) => w.type);
  if (result.verified !== expectation.verified) fail(`verified ${result.verified}, expected ${expectation.verified}`);
  if (list(violations) !== list(expectation.violations)) fail(`violations ${list(violations)}, expected ${list(expectation.violations)}`);
  if (list(warnings) !== list(expectation.warnings)) fail(`warnings ${list(warnings)}, expected ${list(expectation.warnings)}`);
  if (!same4(result.similarity_score, expectation.similarity)) fail(`similarity ${round4(result.similarity_score)}, expected ${expectation.similarity}`);
  const expectedAction = violations.length > 0 ? 'deny' : warnings.length > 0 ? 'review' : 'proceed';
  if (result.recommended_action !== expectedAction) fail(`recommended_action ${result.recommended_action}, expected ${expectedAction}`);
  const descriptions = result.violations.map((v) => v.description).join(' | ');
  if (expectation.descriptionContains && !descriptions.includes(expectation.descriptionContains)) fail(`no violation mentions "${expectation.descriptionContains}": ${descriptions}`);
  if (expectation.descriptionLacks && descriptions.includes(expectation.descriptionLacks)) fail(`a violation mentions "${expectation.descriptionLacks}": ${descriptions}`);
  return `verified ${result.verified}, similarity ${round4(result.similarity_score).toFixed(4)}, ${result.recommended_action}`;
}

export function checkDrift(document: unknown, expectation: DriftExpectation, context: CaseContext): string {
  const cardDocument = expectation.card ? readJsonFile(join(context.root, expectation.card)) : document;
  const card = coherenceParty(locateCard(cardDocument).value, 'card');
  const report = detectDrift(card, traces(document));
  if (report.baseline_size !== expectation.baseline) fail(`baseline of ${report.baseline_size} traces, expected ${expectation.baseline}`);
  const similarities = report.similarities.map((s) => round4(s.similarity));
  if (expectation.similarities && list(similarities) !== list(expectation.similarities)) fail(`similarities ${list(similarities)}, expected ${list(expectation.similarities)}`);
  if (report.alerts.length !== expectation.alerts.length) fail(`${report.alerts.length} alerts, expected ${expectation.alerts.length}`);
  expectation.alerts.forEach((want, i) => {
    const alert = report.alerts[i]!;
    const at = report.similarities.find((s) => s.trace_id === alert.trace_ids.at(-1))?.index;
    if (at !== want.index) fail(`alert ${i} at index ${at}, expected ${want.index}`);
    if (list(alert.trace_ids) !== list(want.traceIds)) fail(`alert ${i} trace_ids ${list(alert.trace_ids)}, expected ${list(want.traceIds)}`);
    if (!same4(alert.analysis.similarity_score, want.score)) fail(`alert ${i} score ${round4(alert.analysis.similarity_score)}, expected ${want.score}`);
    if (alert.analysis.drift_direction !== want.direction) fail(`alert ${i} direction ${alert.analysis.drift_direction}, expected ${want.direction}`);
    for (const indicator of want.indicators ?? []) {
      const found = alert.analysis.specific_indicators.find((x) => x.indicator === indicator.indicator);
      if (!found || !same4(found.baseline, indicator.baseline) || !same4(found.current, indicator.current)) {
        fail(`alert ${i} indicator ${indicator.indicator} ${found ? `${round4(found.baseline)}→${round4(found.current)}` : 'missing'}, expected ${indicator.baseline}→${indicator.current}`);
      }
    }
  });
  const alerts = report.alerts.map((a) => `${a.analysis.drift_direction} ${round4(a.analysis.similarity_score)}`);
  return `baseline ${report.baseline_size}, ${alerts.length === 0 ? 'no alert' : `alert ${alerts.join(', ')}`}`;
}

export function checkCoherenceCase(document: unknown, expectation: CoherenceExpectation, context: CaseContext): string {
  const load = (path: string | undefined, member: string) =>
    path ? coherenceParty(locateCard(readJsonFile(join(context.root, path))).value, path) : coherenceParty((document as Record<string, unknown>)[member], member);
  const result = checkCoherence(load(expectation.initiator, 'my_card'), load(expectation.responder, 'their_card'));
  if (!same4(result.score, expectation.score)) fail(`score ${round4(result.score)}, expected ${expectation.score}`);
  if (result.compatible !== expectation.compatible) fail(`compatible ${result.compatible}, expected ${expectation.compatible}`);
  const conflicts = result.value_alignment.conflicts;
  if (conflicts.length !== expectation.conflicts) fail(`${conflicts.length} conflicts, expected ${expectation.conflicts}`);
  for (const description of expectation.conflictDescriptions ?? []) if (!conflicts.some((c) => c.description === description)) fail(`no conflict "${description}"`);
  if (expectation.recorded) {
    const recorded = readJsonFile(join(context.root, expectation.recorded)) as { score: number; compatible: boolean; proceed: boolean; conflicts: { description: string; type: string }[]; proposed_resolution: { type: string; reason: string } };
    const ours = conflicts.map((c) => `${c.conflict_type}: ${c.description}`);
    const theirs = recorded.conflicts.map((c) => `${c.type}: ${c.description}`);
    if (!same4(result.score, recorded.score) || result.compatible !== recorded.compatible || result.proceed !== recorded.proceed) fail(`differs from ${expectation.recorded} in score, compatible or proceed`);
    if (list(ours) !== list(theirs)) fail(`conflicts ${list(ours)} differ from the recorded ${list(theirs)}`);
    if (result.proposed_resolution?.type !== recorded.proposed_resolution.type || result.proposed_resolution.reason !== recorded.proposed_resolution.reason) fail('proposed_resolution differs from the recorded one');
  }
  return `score ${round4(result.score)}, ${result.compatible ? 'compatible' : 'not compatible'}, ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}`;
}

export function checkRecordedCoherence(document: unknown, expectation: RecordedCoherenceExpectation, context: CaseContext): string {
  const trace = ApTrace.parse(locateTrace(document).value);
  const option = trace.decision.alternatives_considered.find((a) => a.option_id === expectation.option);
  if (typeof option?.score !== 'number') fail(`the trace has no scored "${expectation.option}" option`);
  const party = (path: string) => coherenceParty(locateCard(readJsonFile(join(context.root, path))).value, path);
  const score = checkCoherence(party(expectation.initiator), party(expectation.responder)).score;
  if (!same4(score, option!.score!)) fail(`coherence ${round4(score)}, the trace records ${option!.score}`);
  return `recorded ${option!.score} = coherence ${round4(score)}`;
}
