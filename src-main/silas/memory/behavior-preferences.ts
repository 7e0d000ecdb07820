import type { MemoryRepository } from '../../store/repositories/memory.js';
import type { MemoryPromotionRepository } from '../../store/repositories/memory-promotions.js';

/*
 * The behavioural preference layer of spec 002 §6.6 (§3.8 "Behavioral preference inference"):
 * outcomes the owner decided (approvals and declines in Review, and — when they exist — undo and
 * suggestion outcomes) become `preference` memories tagged `behavior:…` at `working` trust, and a
 * promotion card asks the owner whether to make each a default ("You usually approve … Make this
 * default?"). Nothing here changes a decision the runtime takes: verified preferences are hints
 * for the planner and proxy, and constitutional and security policy always win (§6.6 item 5).
 */

export interface BehaviorSignal {
  /** `approval/<server>/<tool>`, `plan/<origin>`…: what the outcome was about. */
  subject: string;
  /** How a person would name it: "write_file on the filesystem server". */
  label: string;
  outcome: 'approved' | 'declined' | 'undo' | 'dismissed' | 'edit_selection';
}

export interface BehaviorPreferencesDeps {
  /** Recent outcomes, newest last (the runtime reads them from the audit chain). */
  signals: () => BehaviorSignal[];
  memory: Pick<MemoryRepository, 'search' | 'store' | 'update'>;
  promotions: Pick<MemoryPromotionRepository, 'propose' | 'openFor' | 'wasDeclined'>;
  counter: { count(text: string): number };
  /** The same outcome this many times, and no other, makes a pattern. */
  minRepeats?: number;
}

const OWNER = 'owner';

export class BehaviorPreferences {
  constructor(private readonly deps: BehaviorPreferencesDeps) {}

  /** Writes or refreshes one preference per repeated pattern and asks to verify new ones; returns how many were written. */
  async infer(): Promise<number> {
    const min = this.deps.minRepeats ?? 3;
    const bySubject = new Map<string, { label: string; outcomes: BehaviorSignal['outcome'][] }>();
    for (const signal of this.deps.signals()) {
      const entry = bySubject.get(signal.subject) ?? { label: signal.label, outcomes: [] };
      entry.outcomes.push(signal.outcome);
      bySubject.set(signal.subject, entry);
    }
    let written = 0;
    for (const [subject, { label, outcomes }] of bySubject) {
      if (outcomes.length < min || new Set(outcomes).size !== 1) continue;
      const outcome = outcomes[0]!;
      const tag = `behavior:${subject}`;
      const content = `You usually ${VERB[outcome]} ${label} (${outcomes.length} times in a row).`;
      const existing = this.deps.memory.search(OWNER, subject.replace(/[/:_-]+/g, ' '), { limit: 20, tier: 'active' }).find((hit) => hit.item.semantic_tags.includes(tag))?.item;
      let memoryId: string;
      if (existing) {
        if (existing.content === content || existing.trust_level !== 'working') continue;
        this.deps.memory.update(OWNER, existing.memory_id, { content, token_count: this.deps.counter.count(content), taint: 'owner' });
        memoryId = existing.memory_id;
      } else {
        // The owner's own decisions: owner taint, working trust until the owner verifies it (§3.8).
        memoryId = this.deps.memory.store(OWNER, { content, memory_type: 'preference', taint: 'owner', source_kind: 'behavior_inference', token_count: this.deps.counter.count(content), semantic_tags: [tag] });
      }
      written += 1;
      if (this.deps.promotions.openFor(OWNER, memoryId) === null && !this.deps.promotions.wasDeclined(OWNER, memoryId)) {
        this.deps.promotions.propose(OWNER, memoryId, 'the behavioural preference layer', `${content} Make this a default?`);
      }
    }
    return written;
  }
}

const VERB: Record<BehaviorSignal['outcome'], string> = {
  approved: 'approve',
  declined: 'decline',
  undo: 'undo',
  dismissed: 'dismiss',
  edit_selection: 'edit the selection of',
};
