/*
 * English function words, which do not count as shared between a paraphrase query and its target
 * (`content-words.ts`): the stopword list of NLTK's English corpus, plus a few function words it
 * lacks ("would", "also", "without"…). Words are as `contentWords` splits them (letters and digits
 * only), so "don't" is "don" and "t". Keyword recall still matches these words (FTS5 indexes every
 * token); that is why a paraphrase query's keyword recall is low rather than exactly zero.
 */
const NLTK_ENGLISH = `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
  her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was
  were be been being have has had having do does did doing a an the and but if or because as until while of at by for with
  about against between into through during before after above below to from up down in out on off over under again further
  then once here there when where why how all any both each few more most other some such no nor not only own same so than
  too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn
  needn shan shouldn wasn weren won wouldn`;
const EXTRA = 'would could might must shall also us without within upon onto per via yet whether whose ever';

export const STOPWORDS: ReadonlySet<string> = new Set(`${NLTK_ENGLISH} ${EXTRA}`.split(/\s+/).filter(Boolean));
