import { SilasError } from '../../../src-shared/errors.js';
import {
  ALLOCABLE_ZONES,
  ContextErrorCode,
  type AllocableZone,
  type ContextItem,
  type ContextProfile,
  type TokenBudget,
} from '../../../src-shared/silas/context.js';

/**
 * The headroom math of spec 002 §3.5, computed against the allocable budget (what the system
 * zone leaves of the window), never against the raw total.
 */
export interface ZoneBudgets {
  /** `min(system_zone_tokens, system_max)`. */
  systemActual: number;
  /** `max(total - system_actual, 0)`. */
  allocable: number;
  /** `floor(allocable * zone_pct)` per zone. */
  zones: Readonly<Record<AllocableZone, number>>;
  /** `allocable - (chronicle + memory + workspace)`: at least 20% of `allocable`. */
  headroom: number;
}

const SHARE: Readonly<Record<AllocableZone, 'chronicle_pct' | 'memory_pct' | 'workspace_pct'>> = {
  chronicle: 'chronicle_pct',
  memory: 'memory_pct',
  workspace: 'workspace_pct',
};

export function zoneBudgets(budget: TokenBudget, profile: ContextProfile, systemZoneTokens: number): ZoneBudgets {
  const systemActual = Math.min(systemZoneTokens, budget.system_max);
  const allocable = Math.max(budget.total - systemActual, 0);
  const zones = {} as Record<AllocableZone, number>;
  let allotted = 0;
  for (const zone of ALLOCABLE_ZONES) {
    zones[zone] = Math.floor(allocable * profile[SHARE[zone]]);
    allotted += zones[zone];
  }
  return { systemActual, allocable, zones, headroom: allocable - allotted };
}

/** The profile named `name` in the budget's registry (names are opaque keys, §3.5). */
export function findProfile(budget: TokenBudget, name: string): ContextProfile | undefined {
  return Object.hasOwn(budget.profiles, name) ? budget.profiles[name] : undefined;
}

/**
 * Why a single item cannot be added, or null. An item that cannot fit is refused, never truncated
 * (the spec truncates no context item, and a cut message or tool output would read as complete).
 * The system zone's cap is `system_max` for all its items together (§5.7 "hard cap"); another
 * zone's is its whole budget under the scope's current profile (§3.5 headroom math).
 */
export function oversizeRefusal(budget: TokenBudget, profile: ContextProfile, systemZoneTokens: number, item: ContextItem, scopeId: string): SilasError | null {
  if (item.zone === 'system') {
    const after = systemZoneTokens + item.token_count;
    if (after <= budget.system_max) return null;
    return new SilasError(
      ContextErrorCode.ItemTooLarge,
      `system item "${item.ctx_id}" (${item.token_count} tokens) would bring the system zone of scope "${scopeId}" to ${after} tokens, over system_max (${budget.system_max}); shorten it, drop another system item, or raise context.system_max`,
    );
  }
  const zoneBudget = zoneBudgets(budget, profile, systemZoneTokens).zones[item.zone];
  if (item.token_count <= zoneBudget) return null;
  return new SilasError(
    ContextErrorCode.ItemTooLarge,
    `${item.kind} "${item.ctx_id}" (${item.token_count} tokens) is larger than the whole ${item.zone} zone of scope "${scopeId}" (${zoneBudget} tokens under profile "${profile.name}"); store it in memory or a file and add a shorter reference, or use a profile with a larger ${item.zone} share`,
  );
}
