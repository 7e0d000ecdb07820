import { porterStem } from './porter-stemmer.js';
import { STOPWORDS } from './stopwords.js';

/*
 * What "shares no content word" means for a paraphrase query of the recall corpus. Keyword
 * recall (FTS5 with the porter tokenizer, spec 002 §6.1) finds a memory by any word whose stem it
 * holds, so a paraphrase must share no stem with its target, and the check is stricter than FTS5
 * in three ways: accents are folded (FTS5's unicode61 folds them too), irregular forms count as
 * their base ("bought" is "buy", which no stemmer sees), and two words with a common prefix of
 * five letters or more count as shared ("photograph" and "photography" have different Porter
 * stems, but no reader would call them different words).
 */

const WORD = /[\p{L}\p{N}]+/gu;
/** The shortest common prefix that makes two words the same word for this check. */
const SHARED_PREFIX = 5;

// Irregular verb forms and plurals whose stem differs from their base's.
const IRREGULAR: Record<string, string> = Object.fromEntries(
  `bought:buy built:build went:go gone:go ran:run made:make took:take taken:take paid:pay met:meet wrote:write
   written:write chose:choose chosen:choose gave:give given:give kept:keep left:leave felt:feel brought:bring
   thought:think told:tell said:say sent:send spent:spend found:find held:hold ate:eat eaten:eat flew:fly flown:fly
   drove:drive driven:drive rode:ride ridden:ride broke:break broken:break began:begin begun:begin knew:know
   known:know grew:grow grown:grow sold:sell sat:sit stood:stand lost:lose taught:teach caught:catch fought:fight
   led:lead children:child people:person men:man women:woman mice:mouse feet:foot teeth:tooth better:good best:good
   worse:bad worst:bad did:do done:do saw:see seen:see got:get gotten:get came:come stole:steal stolen:steal
   hung:hang slept:sleep woke:wake woken:wake wore:wear worn:wear spoke:speak spoken:speak forgot:forget
   forgotten:forget understood:understand`
    .trim()
    .split(/\s+/)
    .map((pair) => pair.split(':') as [string, string]),
);

/** The distinct words of `text` (letters and digits, lowercase, accents folded) that are not stopwords. */
export function contentWords(text: string): string[] {
  const folded = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return [...new Set(folded.match(WORD) ?? [])].filter((word) => !STOPWORDS.has(word));
}

/** The Porter stem of a word's base form. */
function stemOf(word: string): string {
  return porterStem(IRREGULAR[word] ?? word);
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
  return n;
}

export interface SharedWord {
  query: string;
  memory: string;
  why: 'same stem' | 'common prefix';
}

/** The content words `query` shares with `memory` in the sense above; empty for a true paraphrase. */
export function sharedContentWords(query: string, memory: string): SharedWord[] {
  const memoryWords = contentWords(memory).map((word) => ({ word, stem: stemOf(word) }));
  const shared: SharedWord[] = [];
  for (const word of contentWords(query)) {
    const stem = stemOf(word);
    for (const other of memoryWords) {
      if (other.stem === stem) shared.push({ query: word, memory: other.word, why: 'same stem' });
      else if (commonPrefix(word, other.word) >= SHARED_PREFIX) shared.push({ query: word, memory: other.word, why: 'common prefix' });
    }
  }
  return shared;
}
