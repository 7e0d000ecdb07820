import { ContextSubscription } from '../../../src-shared/silas/context.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import type { ContextSubscriptionRepository, SubscriptionRow } from '../../store/repositories/context-subscriptions.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { StoredSubscription, SubscriptionEvent, SubscriptionStore } from './subscription-state.js';

/*
 * Context subscriptions in the database, sealed with the ledger key (docs/architecture.md §2
 * "Sealed state"). A subscription names a file the runtime reads and sends to a model provider,
 * so a database writer must not be able to plant one (a row subscribing a conversation to
 * ~/.ssh/id_rsa) or retarget one: the seal covers every column that decides what is read, where
 * it goes and whether it is active, bound to the row's id. A row whose seal fails, or whose
 * values do not validate, is never handed to the context manager; the seal refusal is appended
 * to the chain (`state.seal_refused`) and `onRefused` audits which subscription was left out.
 */

export interface SubscriptionRefusal {
  scope_id: string;
  sub_id: string;
  reason: string;
}

/** The sealed value: the row without its seal (and without `updated_at`, which decides nothing). */
function sealedValue(row: Omit<SubscriptionRow, 'seal'>): Record<string, string | number | null> {
  const { sub_id, scope_id, sub_type, target, zone, created_at, turn_created, content_hash, active, token_count, last_changed_turn, last_referenced_turn, stale_since_turn, note } = row;
  return { sub_id, scope_id, sub_type, target, zone, created_at, turn_created, content_hash, active, token_count, last_changed_turn, last_referenced_turn, stale_since_turn, note };
}

function toRow(record: StoredSubscription): Omit<SubscriptionRow, 'seal'> {
  const { sub } = record;
  return {
    sub_id: sub.sub_id,
    scope_id: record.scope_id,
    sub_type: sub.sub_type,
    target: sub.target,
    zone: sub.zone,
    created_at: sub.created_at,
    turn_created: sub.turn_created,
    content_hash: sub.content_hash,
    active: sub.active ? 1 : 0,
    token_count: sub.token_count,
    last_changed_turn: record.last_changed_turn,
    last_referenced_turn: record.last_referenced_turn,
    stale_since_turn: record.stale_since_turn,
    note: record.note,
  };
}

export class SealedSubscriptions implements SubscriptionStore {
  constructor(
    private readonly repo: Pick<ContextSubscriptionRepository, 'save' | 'forScope' | 'delete'>,
    private readonly seals: Pick<StateSeals, 'seal' | 'check'>,
    private readonly now: () => Date,
    private readonly onRefused: (refusal: SubscriptionRefusal) => void,
  ) {}

  /** Sealing throws without the ledger key: nothing is written unsealed. */
  save(record: StoredSubscription): void {
    const row = toRow(record);
    this.repo.save({ ...row, seal: this.seals.seal('ledger', 'context-subscription', row.sub_id, sealedValue(row)) }, this.now());
  }

  load(scopeId: string): StoredSubscription[] {
    const out: StoredSubscription[] = [];
    for (const row of this.repo.forScope(scopeId)) {
      const refuse = (reason: string) => this.onRefused({ scope_id: scopeId, sub_id: row.sub_id.slice(0, 200), reason });
      if (!this.seals.check('ledger', 'context-subscription', row.sub_id, sealedValue(row), row.seal).ok) {
        refuse('the row does not match its seal (planted or changed outside Silas); it is not read');
        continue;
      }
      const sub = ContextSubscription.safeParse({
        sub_id: row.sub_id,
        sub_type: row.sub_type,
        target: row.target,
        zone: row.zone,
        created_at: row.created_at,
        turn_created: row.turn_created,
        content_hash: row.content_hash,
        active: row.active === 1,
        token_count: row.token_count,
      });
      if (!sub.success || row.scope_id !== scopeId) {
        refuse(`the row does not validate (${sub.success ? 'scope' : sub.error.issues[0]!.message}); it is not read`);
        continue;
      }
      out.push({ scope_id: scopeId, sub: sub.data, last_changed_turn: row.last_changed_turn, last_referenced_turn: row.last_referenced_turn, stale_since_turn: row.stale_since_turn, note: row.note });
    }
    return out;
  }

  delete(scopeId: string, subId: string): void {
    this.repo.delete(scopeId, subId);
  }
}

/** Every subscribe, unsubscribe and deactivation is on the chain (docs/silas/context.md "Subscriptions"). */
export function auditSubscription(audit: Pick<AuditLog, 'append'>, event: SubscriptionEvent): void {
  switch (event.type) {
    case 'subscribed':
      audit.append('silas.stream.subscribed', { scope_id: event.scope_id, sub_id: event.sub.sub_id, sub_type: event.sub.sub_type, target: event.sub.target, zone: event.sub.zone, reactivated: event.reactivated });
      return;
    case 'unsubscribed':
      audit.append('silas.stream.unsubscribed', { scope_id: event.scope_id, sub_id: event.sub_id, removed: event.removed });
      return;
    case 'deactivated':
      audit.append('silas.stream.subscription_deactivated', { scope_id: event.scope_id, turn: event.turn, sub_id: event.sub.sub_id, sub_type: event.sub.sub_type, target: event.sub.target, reason: event.reason, detail: event.detail });
  }
}
