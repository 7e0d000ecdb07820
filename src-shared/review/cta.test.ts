import { describe, expect, it } from 'vitest';
import { CardAction } from '../schemas/review.js';
import { isElevated, orderActions } from './cta.js';

const ALLOW = { choice: 'allow_once', label: 'Allow once', consequence: 'Runs once' };
const ALWAYS = { choice: 'always_allow', label: 'Always allow', consequence: 'Runs every time' };
const DENY = { choice: 'deny', label: 'Deny', consequence: 'Nothing runs' };

const shape = (actions: CardAction[]) => actions.map((a) => [a.choice, a.role, a.tone]);

describe('CTA order (§0.5.3), one rule for every kind', () => {
  it.each(['low', 'medium'] as const)('%s risk: the primary allow is recommended, alternatives in the middle, the decline last and plain', (risk) => {
    expect(shape(orderActions(risk, [ALLOW, ALWAYS], DENY))).toEqual([
      ['allow_once', 'recommended', 'recommended'],
      ['always_allow', 'alternative', 'secondary'],
      ['deny', 'decline', 'secondary'],
    ]);
  });

  it.each(['high', 'irreversible'] as const)('%s risk: the decline is recommended and first; every allowing action is drawn as danger, the primary one last', (risk) => {
    expect(shape(orderActions(risk, [ALLOW, ALWAYS], DENY))).toEqual([
      ['deny', 'recommended', 'recommended'],
      ['always_allow', 'alternative', 'danger'],
      ['allow_once', 'alternative', 'danger'],
    ]);
  });

  it('a standing alternative is never recommended, at any risk; exactly one action is', () => {
    for (const risk of ['low', 'medium', 'high', 'irreversible'] as const) {
      const actions = orderActions(risk, [ALLOW, ALWAYS], DENY);
      expect(actions.filter((a) => a.role === 'recommended')).toHaveLength(1);
      expect(actions.find((a) => a.choice === 'always_allow')!.role).toBe('alternative');
      for (const action of actions) expect(CardAction.safeParse(action).success).toBe(true);
    }
  });

  it('a kind with a single allowing action keeps its texts', () => {
    expect(orderActions('medium', [ALLOW], DENY)).toEqual([
      { ...ALLOW, role: 'recommended', tone: 'recommended' },
      { ...DENY, role: 'decline', tone: 'secondary' },
    ]);
    expect(isElevated('medium')).toBe(false);
    expect(isElevated('irreversible')).toBe(true);
  });
});
