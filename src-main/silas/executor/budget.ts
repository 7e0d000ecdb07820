import { exhaustedBudgetFields, type Budget, type BudgetUsed } from '../../../src-shared/silas/work.js';

/**
 * Budget tracking of spec 002 §5.2.1 step 1. Every limit uses `>=` (§3.3): reaching a limit
 * counts as exhausted. Each limit gates the action it counts: tokens, cost and wall time gate
 * every action; attempts gate starting an attempt; planner calls gate consulting the planner.
 * (Gating everything on every limit would make the last planner call's guidance unusable and
 * refuse the tool calls of the last allowed attempt.)
 *
 * The limits gate this execution's own consumption: an approval authorises one execution of the
 * plan within its budget, so a task re-run under a new approval gets the budget the person
 * approved again, while `used` keeps the item's whole history for the record.
 */

export type BudgetAction = 'action' | 'attempt' | 'planner';
type Counters = Omit<BudgetUsed, 'wall_time_seconds'>;
const WHOLE: ReadonlyArray<keyof Counters> = ['tokens', 'attempts', 'planner_calls', 'executor_runs'];

const GATED_BY: Readonly<Record<BudgetAction, ReadonlyArray<keyof Budget>>> = {
  action: ['max_tokens', 'max_cost_usd', 'max_wall_time_seconds'],
  attempt: ['max_tokens', 'max_cost_usd', 'max_wall_time_seconds', 'max_attempts'],
  planner: ['max_tokens', 'max_cost_usd', 'max_wall_time_seconds', 'max_planner_calls'],
};

export class BudgetTracker {
  private readonly base: BudgetUsed;
  private readonly startedMs: number;
  private spent: Counters;

  /** `base` is what the item had consumed before this execution (reported in `used`, never gated). */
  constructor(
    readonly budget: Budget,
    base: BudgetUsed,
    private readonly now: () => Date,
  ) {
    this.base = { ...base };
    this.startedMs = now().getTime();
    this.spent = { tokens: 0, cost_usd: 0, attempts: 0, planner_calls: 0, executor_runs: 0 };
  }

  /** Consumption so far, wall time included (measured, never reported by an agent). */
  get used(): BudgetUsed {
    const elapsed = Math.max(0, (this.now().getTime() - this.startedMs) / 1000);
    return {
      tokens: this.base.tokens + this.spent.tokens,
      cost_usd: this.base.cost_usd + this.spent.cost_usd,
      wall_time_seconds: this.base.wall_time_seconds + elapsed,
      attempts: this.base.attempts + this.spent.attempts,
      planner_calls: this.base.planner_calls + this.spent.planner_calls,
      executor_runs: this.base.executor_runs + this.spent.executor_runs,
    };
  }

  /** Only this execution's consumption (what a project or goal merges into its own). */
  get delta(): BudgetUsed {
    const used = this.used;
    return { ...this.spent, wall_time_seconds: used.wall_time_seconds - this.base.wall_time_seconds };
  }

  /**
   * Adds consumption. Negative or non-finite amounts are refused: an agent reporting `-1000`
   * tokens must not buy itself budget.
   */
  charge(amounts: Partial<Counters>): void {
    for (const [key, value] of Object.entries(amounts) as Array<[keyof Counters, number | undefined]>) {
      if (value === undefined) continue;
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`budget charge ${key}: expected a finite number >= 0, got ${value}`);
      if (WHOLE.includes(key) && !Number.isInteger(value)) throw new RangeError(`budget charge ${key}: expected a whole number, got ${value}`);
      this.spent = { ...this.spent, [key]: this.spent[key] + value };
    }
  }

  /** The limits reached that gate `action`; empty when it may proceed. */
  exhausted(action: BudgetAction = 'action'): Array<keyof Budget> {
    const reached = exhaustedBudgetFields(this.delta, this.budget);
    return reached.filter((limit) => GATED_BY[action].includes(limit));
  }

  /** Seconds of wall time left (never below 0). */
  remainingWallSeconds(): number {
    return Math.max(0, this.budget.max_wall_time_seconds - this.delta.wall_time_seconds);
  }

  describe(limits: ReadonlyArray<keyof Budget>): string {
    const used = this.delta;
    const value: Record<keyof Budget, string> = {
      max_tokens: `${used.tokens} tokens of ${this.budget.max_tokens}`,
      max_cost_usd: `$${used.cost_usd.toFixed(4)} of $${this.budget.max_cost_usd.toFixed(2)}`,
      max_wall_time_seconds: `${used.wall_time_seconds.toFixed(1)}s of ${this.budget.max_wall_time_seconds}s wall time`,
      max_attempts: `${used.attempts} of ${this.budget.max_attempts} attempts`,
      max_planner_calls: `${used.planner_calls} of ${this.budget.max_planner_calls} planner calls`,
    };
    return `budget exhausted: ${limits.map((limit) => `${limit} (${value[limit]})`).join(', ')}`;
  }
}
