/*
 * English function words, left out of what a message recalls by keyword on its own (spec 002 §5.1
 * step 4). Every memory holds "the" and "what": a message made only of such words would otherwise
 * recall whatever memories hold them, and a message with one distinctive word would rank it among
 * noise. An explicit query (the agent's `keyword` MemoryQuery, the Memory page) keeps every word.
 */
const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing don
  down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just let me more
  most my myself no nor not now of off on once only or other our ours ourselves out over own same say said she should so some such than that the their
  theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves tell remind know please thanks thank hi hello hey ok okay yes also again get got`.split(/\s+/),
);

/** The words of `text` that can tell memories apart, in their order, joined by spaces. */
export function contentWords(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? []).filter((word) => !STOPWORDS.has(word)).join(' ');
}
