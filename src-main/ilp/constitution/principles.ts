import RE2 from 're2';

/*
 * The word lists two universal principles read (spec 004 §9.1 items 6, §10.1), matched without
 * regard to case and on whole words, so "hackathon" is not "hack" (the reference matches
 * substrings; docs/conformance.md "ILP constitution").
 */

/** Phrases by which an answer or its reasoning admits uncertainty (§9.1 item 6). */
export const UNCERTAINTY_PHRASES = [
  'not certain',
  'not sure',
  'uncertain',
  'uncertainty',
  "i don't know",
  'i do not know',
  'may be wrong',
  'might be wrong',
  'could be wrong',
  'low confidence',
  'not confident',
  'cannot be sure',
  "can't be sure",
  'not qualified',
  'unclear',
  'i am not able to verify',
];

/** Claims of authority that need a source (§4, epistemic honesty): a warning when the answer cites none. */
const UNSOURCED_AUTHORITY = ['studies show', 'research shows', 'research proves', 'experts agree', 'scientists say', 'it is well known', 'it is proven'];

/** Words of harm (§10.1), and the words that make a sentence about defending against it. */
const HARM_WORDS = ['exploit', 'exploits', 'malware', 'ransomware', 'keylogger', 'phishing', 'hack', 'hacking', 'steal', 'stealing', 'ddos', 'backdoor'];
export const DEFENCE_WORDS = ['avoid', 'prevent', 'prevention', 'protect', 'protection', 'defend', 'defence', 'defense', 'detect', 'detection', 'security', 'never', "don't", 'do not', 'mitigate', 'patch'];

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One pass over an answer for both lists: group 1 a word of harm, group 2 a claim of authority.
 * Global to walk every hit; `{ global: false }` gives the same pattern for a plain `test`.
 */
export function answerScanner({ global = true }: { global?: boolean } = {}): RE2 {
  const words = (list: readonly string[]) => list.map(escape).join('|');
  return new RE2(`(?:^|[^\\p{L}\\p{N}_])(?:(${words(HARM_WORDS)})|(${words(UNSOURCED_AUTHORITY)}))(?:$|[^\\p{L}\\p{N}_])`, global ? 'giu' : 'iu');
}

/** A matcher for any of `phrases` as whole words, case-blind; RE2, so any text is read in linear time. Group 1 is the phrase. */
export function wordsMatcher(phrases: readonly string[]): RE2 {
  return new RE2(`(?:^|[^\\p{L}\\p{N}_])(${phrases.map(escape).join('|')})(?:$|[^\\p{L}\\p{N}_])`, 'iu');
}
