import { formatIssue, type ValidationIssue } from '../../src-shared/aap/issues.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import type { CardValidation } from '../../src-shared/aap/validate-card.js';
import { validateApTrace } from '../../src-shared/aap/validate-trace.js';
import { compileAlignmentCard, validateCard, type CompiledCard } from './card.js';
import { expandTracePaths, readJsonFile, readTraceDocuments } from './files.js';
import { locateCard, locateTraces, reroot } from './inputs.js';

/*
 * Cards and traces from files, with every problem as `SOURCE: path: message` lines. A card used to
 * verify must compile (schema and conditions); the full validation (definitions, expiry…) comes
 * along so a caller can report what keeps the card from being activated without refusing to
 * verify against it — verification itself reports an expired card (§7.5 CARD_EXPIRED).
 */

export type Loaded<T> = { ok: true; value: T } | { ok: false; errors: string[] };

const lines = (source: string, issues: readonly ValidationIssue[]) => issues.map((issue) => `${source}: ${formatIssue(issue)}`);

export interface LoadedCard {
  compiled: CompiledCard;
  /** Full validation at `now`, with paths from the file's root. */
  validation: CardValidation;
}

export function validateCardDocument(document: unknown, now: Date): CardValidation {
  const located = locateCard(document);
  const validation = validateCard(located.value, { now });
  return { ...validation, errors: reroot(validation.errors, located.at), warnings: reroot(validation.warnings, located.at) };
}

export function loadCard(file: string, now: Date): Loaded<LoadedCard> {
  const document = readJsonFile(file);
  const located = locateCard(document);
  const compiled = compileAlignmentCard(located.value);
  if (!compiled.ok) return { ok: false, errors: lines(file, reroot(compiled.errors, located.at)) };
  return { ok: true, value: { compiled: compiled.compiled, validation: validateCardDocument(document, now) } };
}

/** Every trace in the files and folders given, in the order found; any invalid trace fails the load. */
export function loadTraces(paths: readonly string[]): Loaded<ApTrace[]> {
  const traces: ApTrace[] = [];
  const errors: string[] = [];
  for (const file of expandTracePaths(paths)) {
    for (const { source, document } of readTraceDocuments(file)) {
      for (const located of locateTraces(document)) {
        const validation = validateApTrace(located.value);
        if (validation.ok) traces.push(validation.trace!);
        else errors.push(...lines(source, reroot(validation.errors, located.at)));
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: traces };
}
