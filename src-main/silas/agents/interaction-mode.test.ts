import { describe, expect, it } from 'vitest';
import { InteractionConfig, type InteractionMode, type InteractionRegister } from '../../../src-shared/silas/agents.js';
import { interactionConfigInputs, resolveInteractionMode, type InteractionModeInputs } from './interaction-mode.js';

const config = interactionConfigInputs(InteractionConfig.parse({}));
const base: InteractionModeInputs = {
  proxyMode: null,
  plannerOverride: null,
  workItemMode: null,
  riskRequiresConfirmation: false,
  initiativeLevel: 0.5,
  interactionRegister: 'status',
  ...config,
};
const resolve = (overrides: Partial<InteractionModeInputs>) => resolveInteractionMode({ ...base, ...overrides });

describe('resolveInteractionMode (§5.1.0)', () => {
  it('uses the §11 defaults: high_initiative_min 0.65 and a mode for every register', () => {
    expect(config).toEqual({
      highInitiativeMin: 0.65,
      defaultModeByRegister: { exploration: 'default_and_offer', execution: 'act_and_report', review: 'confirm_only_when_required', status: 'default_and_offer' },
    });
  });

  // Precedence: risk > planner override > work item mode > proxy mode > initiative/register > register default.
  it.each<[string, Partial<InteractionModeInputs>, InteractionMode]>([
    ['risk wins over everything', { riskRequiresConfirmation: true, plannerOverride: 'act_and_report', workItemMode: 'act_and_report', proxyMode: 'act_and_report', initiativeLevel: 1, interactionRegister: 'execution' }, 'confirm_only_when_required'],
    ['planner override wins over work item, proxy and initiative', { plannerOverride: 'default_and_offer', workItemMode: 'act_and_report', proxyMode: 'act_and_report', initiativeLevel: 1, interactionRegister: 'execution' }, 'default_and_offer'],
    ['planner override may itself be confirm_only_when_required', { plannerOverride: 'confirm_only_when_required', proxyMode: 'act_and_report' }, 'confirm_only_when_required'],
    ['work item mode wins over proxy and initiative', { workItemMode: 'confirm_only_when_required', proxyMode: 'act_and_report', initiativeLevel: 1, interactionRegister: 'execution' }, 'confirm_only_when_required'],
    ['proxy mode wins over initiative', { proxyMode: 'default_and_offer', initiativeLevel: 1, interactionRegister: 'execution' }, 'default_and_offer'],
    ['high initiative + execution -> act_and_report', { initiativeLevel: 0.9, interactionRegister: 'execution' }, 'act_and_report'],
    ['high initiative + exploration -> default_and_offer', { initiativeLevel: 0.9, interactionRegister: 'exploration', defaultModeByRegister: { ...config.defaultModeByRegister, exploration: 'confirm_only_when_required' } }, 'default_and_offer'],
    ['initiative exactly at the threshold counts as high', { initiativeLevel: 0.65, interactionRegister: 'execution', defaultModeByRegister: { ...config.defaultModeByRegister, execution: 'confirm_only_when_required' } }, 'act_and_report'],
    ['high initiative + review -> the register default', { initiativeLevel: 0.9, interactionRegister: 'review' }, 'confirm_only_when_required'],
    ['high initiative + status -> the register default', { initiativeLevel: 0.9, interactionRegister: 'status', defaultModeByRegister: { ...config.defaultModeByRegister, status: 'act_and_report' } }, 'act_and_report'],
    ['low initiative + execution -> the register default, not act_and_report', { initiativeLevel: 0.2, interactionRegister: 'execution', defaultModeByRegister: { ...config.defaultModeByRegister, execution: 'confirm_only_when_required' } }, 'confirm_only_when_required'],
    ['low initiative + exploration -> the register default', { initiativeLevel: 0.64, interactionRegister: 'exploration', defaultModeByRegister: { ...config.defaultModeByRegister, exploration: 'act_and_report' } }, 'act_and_report'],
    ['a register missing from the map -> default_and_offer', { initiativeLevel: 0.1, interactionRegister: 'review', defaultModeByRegister: {} }, 'default_and_offer'],
    ['risk without anything else set', { riskRequiresConfirmation: true, initiativeLevel: 0 }, 'confirm_only_when_required'],
  ])('%s', (_name, overrides, expected) => {
    expect(resolve(overrides)).toBe(expected);
  });

  // §0.5.7's deterministic behaviour rule, as the Stream applies it after routing (step 7: no planner or work-item override).
  it.each<[InteractionRegister, number, boolean, InteractionMode]>([
    ['exploration', 0.9, false, 'default_and_offer'],
    ['execution', 0.9, false, 'act_and_report'],
    ['exploration', 0.9, true, 'confirm_only_when_required'],
    ['execution', 0.9, true, 'confirm_only_when_required'],
  ])('§0.5.7: register %s, initiative %s, risk %s -> %s', (interactionRegister, initiativeLevel, riskRequiresConfirmation, expected) => {
    expect(resolve({ interactionRegister, initiativeLevel, riskRequiresConfirmation })).toBe(expected);
  });

  it('step 7 (routing): the proxy mode stands unless risk requires confirmation', () => {
    expect(resolve({ proxyMode: 'act_and_report', interactionRegister: 'exploration', initiativeLevel: 0.1 })).toBe('act_and_report');
    expect(resolve({ proxyMode: 'act_and_report', riskRequiresConfirmation: true })).toBe('confirm_only_when_required');
  });

  it('refuses an interaction config that leaves a register out (§11 startup rule)', () => {
    const parsed = InteractionConfig.safeParse({ default_mode_by_register: { exploration: 'default_and_offer', execution: 'act_and_report', review: 'confirm_only_when_required' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['default_mode_by_register', 'status']);
  });
});
