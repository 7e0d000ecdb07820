import RE2 from 're2';
import { phraseSkeleton } from './normalise.js';

/**
 * A deterministic jailbreak phrase list (the stand-in for guardrails-ai's jailbreak validator).
 * Rules are written over the phrase skeleton of `phraseSkeleton` — lower-case ASCII letters only,
 * no spaces — so the same rule catches "Ignore previous instructions", "IGNORE  previous\n
 * instructions", "i.g.n.o.r.e previous instructions", zero-width splits, fullwidth and Cyrillic
 * look-alikes. Rules are long multi-word shapes because the skeleton drops word boundaries.
 * This is a tripwire for known phrasings, not a classifier; an LLM quality gate can add judgement.
 */

// No "my" and no "messages": "forget my previous message" is a user correcting themselves.
const FILLER = '(?:all|any|the|your|these|those|of|every|everything|prior)*';
const EARLIER = '(?:previous|prior|above|earlier|preceding|former|past|initial|original|system)';
const ORDERS = '(?:instructions?|prompts?|rules|directions?|guidelines|constraints|programming|training)';

const JAILBREAK_RULES: ReadonlyArray<{ id: string; source: string }> = [
  { id: 'ignore_previous_instructions', source: `(?:ignore|disregard|forget|skip|override)${FILLER}${EARLIER}${ORDERS}` },
  { id: 'ignore_your_rules', source: `(?:ignore|disregard|forget|override|bypass)(?:all|any|the|your|of)+(?:rules|guidelines|restrictions|safeguards|guardrails|filters|policies)` },
  { id: 'disable_safety', source: `(?:bypass|disable|turnoff|deactivate|remove|circumvent)(?:all|any|the|your|of)*(?:safety|content|ethical|moderation)(?:filters?|guardrails?|restrictions|guidelines|checks|protocols|settings)` },
  { id: 'do_anything_now', source: 'doanythingnow' },
  { id: 'special_mode', source: '(?:enable|enter|activate|switchto|youareinnow|youarenowin)(?:the)?(?:dan|developer|jailbreak|jailbroken|godmode|unrestricted|unfiltered|uncensored)(?:mode)?' },
  { id: 'developer_mode_enabled', source: '(?:developer|jailbreak|dan)mode(?:is)?(?:now)?(?:enabled|activated|on)' },
  { id: 'reveal_system_prompt', source: `(?:reveal|show|print|repeat|output|display|leak|tellme|whatis)(?:me)?(?:your|the)(?:full|entire|hidden|secret|original|initial|exact)?(?:system|hidden|initial|original|secret)(?:prompt|instructions|message)` },
  { id: 'no_restrictions_persona', source: '(?:pretend|imagine|actasif|roleplay)(?:that)?(?:you|youre|youare)(?:an?)?(?:ai)?(?:with|have|has|had)?no(?:restrictions|rules|guidelines|filters|limits|limitations|ethics|morals)' },
  { id: 'unrestricted_ai', source: '(?:actas|youarenow|becomean?|respondasan?)(?:an?)?(?:unrestricted|unfiltered|uncensored|unaligned|amoral|evil)(?:ai|assistant|model|chatbot|version)' },
  { id: 'no_longer_bound', source: 'youarenolonger(?:bound|restricted|limited|constrained|an?ai|anassistant)' },
];

export interface JailbreakMatch {
  rule: string;
}

export class JailbreakDetector {
  private readonly rules: { id: string; regex: RE2 }[];
  private readonly phrases: { id: string; skeleton: string }[];

  /** `extraPhrases` are matched on their own skeleton, so they get the same normalisation as the text. */
  constructor(extraPhrases: readonly string[] = []) {
    this.rules = JAILBREAK_RULES.map((rule) => ({ id: rule.id, regex: new RE2(rule.source, 'u') }));
    this.phrases = extraPhrases.map((phrase, i) => {
      const skeleton = phraseSkeleton(phrase);
      if (skeleton.length < 6) {
        throw new RangeError(`phrases[${i}]: "${phrase}" has fewer than 6 letters after normalisation; it would match ordinary text`);
      }
      return { id: `phrase_${i}`, skeleton };
    });
  }

  detect(text: string): JailbreakMatch[] {
    const skeleton = phraseSkeleton(text);
    const found: JailbreakMatch[] = [];
    for (const rule of this.rules) if (rule.regex.test(skeleton)) found.push({ rule: rule.id });
    for (const phrase of this.phrases) if (skeleton.includes(phrase.skeleton)) found.push({ rule: phrase.id });
    return found;
  }
}
