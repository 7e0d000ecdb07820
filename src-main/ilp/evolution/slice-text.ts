import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { isSliceId } from '../navigator/slice-file.js';

/*
 * The text of a learned slice (spec 004 §4.3 "Candidate Generation": the loop synthesises a slice
 * in the navigator's format, docs/ilp.md "Navigator and slices"). The model supplies values only —
 * title, concepts, knowledge — and this module writes the document around them with a YAML
 * serialiser, so nothing the model writes becomes YAML structure: no key of its choosing, no
 * anchor or tag, no second document. The id is ours too, derived from the pattern's concepts,
 * so a model cannot name a path or take a shipped slice's id.
 */

export interface SliceDraft {
  id: string;
  domain: string;
  title: string;
  description: string;
  /** Concept keys, the pattern's first. */
  concepts: string[];
  knowledge: string;
  /** The registry version this text is written as. */
  version: number;
}

/** Slice ids the loop creates start with this, so they never meet the shipped slices' names. */
const LEARNED_PREFIX = 'learned-';
/** The domain of a learned slice whose episodes name no domain usable as a slice domain. */
const LEARNED_DOMAIN = 'learned';
const MAX_ID = 128;
const MAX_TITLE = 200;
const MAX_CONCEPTS = 16;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * `learned-` and the concept keys joined by `-` (`learned-feedback_loop-homeostasis`). A concept
 * that is not plain lower-case ASCII, or a name too long for an id, gives `learned-` and a digest
 * of the concepts instead: the id must pass the navigator's rule (a name, never a path).
 */
export function learnedSliceId(concepts: readonly string[]): string {
  const plain = concepts.every((c) => /^[a-z0-9_]+$/.test(c)) && concepts.length > 0;
  const named = `${LEARNED_PREFIX}${concepts.join('-')}`;
  if (plain && named.length <= MAX_ID && isSliceId(named)) return named;
  const ascii = concepts.map((c) => c.replace(/[^a-z0-9_]/g, '')).filter((c) => c !== '').join('-').slice(0, 80);
  const id = `${LEARNED_PREFIX}${ascii === '' ? '' : `${ascii}-`}${digest(concepts.join('+')).slice(0, 12)}`;
  return isSliceId(id) ? id : `${LEARNED_PREFIX}${digest(concepts.join('+')).slice(0, 16)}`;
}

/** The first of the pattern's domains usable as a slice domain, else LEARNED_DOMAIN. */
export function learnedDomain(domains: readonly string[]): string {
  return domains.find((d) => isSliceId(d)) ?? LEARNED_DOMAIN;
}

/** One line of at most MAX_TITLE characters. */
export function oneLine(text: string, max = MAX_TITLE): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** The slice file's text. Values are serialised as YAML scalars and lists; the structure is fixed here. */
export function sliceText(draft: SliceDraft): string {
  const document = {
    metadata: {
      id: draft.id,
      domain: draft.domain,
      title: oneLine(draft.title),
      description: draft.description,
      concepts: draft.concepts.slice(0, MAX_CONCEPTS),
      connects_to: {},
      tags: ['learned'],
      version: String(draft.version),
      author: 'Silas knowledge distillation (spec 004 §4.3)',
    },
    knowledge: draft.knowledge.endsWith('\n') ? draft.knowledge : `${draft.knowledge}\n`,
    examples: [],
    formulas: {},
    principles: [],
    references: [],
  };
  return stringify(document, { lineWidth: 0, aliasDuplicateObjects: false });
}
