import { events, isEventName, type CallArgs, type CallName, type CallResult, type EventName, type EventPayload } from '../../../src-shared/contract/index.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { CockpitStore } from '../../store/cockpit-store.js';
import type { Route } from '../routes.js';

/** How a feature asks the runtime: typed from the contract, rejecting with a ClientError. */
export type Call = <N extends CallName>(name: N, args: CallArgs<N>) => Promise<CallResult<N>>;

/**
 * Pushed events a feature listens to, by name, each handler given the payload already checked
 * against the contract. `audit.appended` is not among them: every new ledger entry goes to `entry`.
 */
type FeatureEvents = { [N in Exclude<EventName, 'audit.appended'>]?: (payload: EventPayload<N>) => void };

/**
 * The one shape every part of the cockpit's wiring has (docs/architecture.md §4.7), so that
 * `connectCockpit` is a loop over features rather than a chain of event names.
 */
export interface FeatureWiring<A extends object = object> {
  /** On every (re)connect: read again what the feature shows. */
  reload(): void;
  /**
   * A new ledger entry. A feature decides by the entry's audit category (docs/architecture.md §5),
   * never by a prefix of its name, whether what it shows changed.
   */
  entry?(entry: AuditEntry): void;
  events?: FeatureEvents;
  /**
   * Pages whose data change outside Silas (the person edits client configurations and policy
   * files): what to read again when the page is opened while connected.
   */
  opened?: Partial<Record<Route, () => void>>;
  /** What components may call; everything with a side effect goes through here. */
  actions: A;
  /** Cancels timers and drops answers still on their way. */
  dispose(): void;
}

/** What every feature's wiring is built from. */
export interface FeatureDeps {
  call: Call;
  store: CockpitStore;
  /** The connection now: answers that belong to a replaced one are dropped. */
  generation(): number;
}

/**
 * Hands one pushed event to the features: a ledger entry to every `entry`, any other event to
 * the features listening to it. A payload that does not match the contract reaches no one, and
 * an event no feature listens to is not even parsed.
 */
export function deliverEvent(features: readonly FeatureWiring[], name: string, payload: unknown): void {
  if (!isEventName(name)) return;
  if (name === 'audit.appended') {
    const entry = events[name].payload.safeParse(payload);
    if (entry.success) for (const feature of features) feature.entry?.(entry.data);
    return;
  }
  // Each handler is typed by the name it is listed under, so the payload parsed for that name is its argument.
  const handlers = features.flatMap((feature) => feature.events?.[name] ?? []) as ((payload: unknown) => void)[];
  if (handlers.length === 0) return;
  const parsed = events[name].payload.safeParse(payload);
  if (parsed.success) for (const handler of handlers) handler(parsed.data);
}
