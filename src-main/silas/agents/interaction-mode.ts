import type { InteractionConfig, InteractionMode, InteractionRegister } from '../../../src-shared/silas/agents.js';

/**
 * The one place a turn's or a work item's interaction mode is decided (spec 002 §5.1.0
 * "Interaction-mode governance MUST be centralized in one function", §0.5.7). The Stream calls it
 * after routing (§5.1 step 7: the Proxy's mode, no planner or work-item override) and for
 * plan-based execution (step 12: risk > PlanAction override > the work item's own mode > the
 * Proxy's mode > initiative/register default), and persists what it returns. Nothing else
 * assigns a mode.
 */

export interface InteractionModeInputs {
  /** `RouteDecision.interaction_mode`, or null when there is no route decision. */
  proxyMode: InteractionMode | null;
  /** `PlanAction.interaction_mode_override`; null at routing time (step 7). */
  plannerOverride: InteractionMode | null;
  /** The work item's mode when the plan set one explicitly; null at routing time (step 7). */
  workItemMode: InteractionMode | null;
  /** Any policy or risk rule requires confirmation this turn: it wins over everything (§0.5.7). */
  riskRequiresConfirmation: boolean;
  /** The effective personality `initiative` axis, 0..1 (§3.10). */
  initiativeLevel: number;
  interactionRegister: InteractionRegister;
  /** Config `interaction.high_initiative_min` (default 0.65). */
  highInitiativeMin: number;
  /** Config `interaction.default_mode_by_register`. */
  defaultModeByRegister: Partial<Record<InteractionRegister, InteractionMode>>;
}

/** §5.1.0 `resolve_interaction_mode`, branch for branch. */
export function resolveInteractionMode(inputs: InteractionModeInputs): InteractionMode {
  if (inputs.riskRequiresConfirmation) return 'confirm_only_when_required';
  if (inputs.plannerOverride !== null) return inputs.plannerOverride;
  if (inputs.workItemMode !== null) return inputs.workItemMode;
  if (inputs.proxyMode !== null) return inputs.proxyMode;
  if (inputs.initiativeLevel >= inputs.highInitiativeMin) {
    if (inputs.interactionRegister === 'execution') return 'act_and_report';
    if (inputs.interactionRegister === 'exploration') return 'default_and_offer';
  }
  return inputs.defaultModeByRegister[inputs.interactionRegister] ?? 'default_and_offer';
}

/** The config-derived inputs, spelled as the spec's config keys (`interaction.*`, §11). */
export function interactionConfigInputs(config: InteractionConfig): Pick<InteractionModeInputs, 'highInitiativeMin' | 'defaultModeByRegister'> {
  return { highInitiativeMin: config.high_initiative_min, defaultModeByRegister: config.default_mode_by_register };
}
