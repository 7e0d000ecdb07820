import { WorkItemRepository, type WorkItemListColumn, type WorkItemRow } from '../../store/repositories/work-item-repository.js';
import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { SilasError } from '../../../src-shared/errors.js';
import type { AuditEventData } from '../../../src-shared/audit/events.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { ApprovalToken } from '../../../src-shared/silas/approval.js';
import {
  BudgetUsed,
  WorkItem,
  WorkItemId,
  WorkItemResult,
  WorkItemStatus,
  type WorkItemInput,
} from '../../../src-shared/silas/work.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { planHash } from '../work/hashes.js';
import {
  MAX_VERIFICATION_HISTORY,
  WorkItemStoreErrorCode,
  checkRuntimeChange,
  checkTokenAddress,
  fail,
  firstIssue,
  parseResult,
  savedEvent,
  verificationSummary,
  type AuditItem,
} from './work-item-rules.js';

export { MAX_VERIFICATION_HISTORY, transitionRefusal, WorkItemStoreErrorCode } from './work-item-rules.js';

/**
 * WorkItemStore of spec 002 §4.13 on SQLite (migration 006). Every write and its audit entries
 * commit in one `BEGIN IMMEDIATE` transaction, so the ledger never misses a state change and a
 * change that cannot be audited is not made. Decisions: docs/silas/store-and-cli.md.
 */

export interface StatusUpdate {
  /** The new attempt count; never lower than the stored one. */
  attempts?: number;
  /** One verification run to append to the item's history. */
  verificationResults?: readonly JsonObject[];
  /** Why the status changed (e.g. the approval refusal); recorded in the audit entry. */
  reason?: string;
  /** The executor's result, stored as the item's last result. */
  result?: WorkItemResult;
}

export interface WorkItemStore {
  /** Inserts a new item (status `pending`) or saves a loaded one; runtime state obeys the same rules as `updateStatus`. */
  save(item: WorkItemInput): WorkItem;
  get(workItemId: string): WorkItem | null;
  listByStatus(status: WorkItemStatus): WorkItem[];
  /** Items whose `parent` is this project or goal (project tasks, spawned fix tasks), oldest first. */
  listByParent(parentId: string): WorkItem[];
  listFollowUps(workItemId: string): WorkItem[];
  /** Status and budget atomically (§4.13 `update_status`), plus attempts, a verification run, a result. */
  updateStatus(workItemId: string, status: WorkItemStatus, budgetUsed: BudgetUsed, update?: StatusUpdate): WorkItem;
  /** `updateStatus` from a WorkItemResult; the result is kept as the item's last result. */
  recordResult(result: WorkItemResult, verificationRun?: readonly JsonObject[]): WorkItem;
  getResult(workItemId: string): WorkItemResult | null;
  /** Attaches (or refreshes) the approval token; it must be addressed to this item. */
  attachApprovalToken(workItemId: string, token: ApprovalToken): WorkItem;
}

export interface SqliteWorkItemStoreDeps {
  db: SqliteDatabase;
  /** Must write to the same connection as `db` so its entries join the row's transaction. */
  audit: Pick<AuditLog, 'appendBatch'>;
  now?: () => Date;
}

type Row = WorkItemRow;

/** A stored row that does not validate; the message names the field. */
class CorruptWorkItemError extends SilasError {
  constructor(
    readonly workItemId: string,
    readonly field: string,
    detail: string,
  ) {
    super(WorkItemStoreErrorCode.Corrupt, `work item ${workItemId} in the store is invalid (edited outside Silas or corrupt): ${field}: ${detail}`);
    this.name = 'CorruptWorkItemError';
  }
}

export class SqliteWorkItemStore implements WorkItemStore {
  private readonly now: () => Date;
  private readonly rows: WorkItemRepository;

  constructor(private readonly deps: SqliteWorkItemStoreDeps) {
    this.now = deps.now ?? (() => new Date());
    this.rows = new WorkItemRepository(deps.db);
  }

  save(input: WorkItemInput): WorkItem {
    const parsed = WorkItem.safeParse(input);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error, '');
      fail(WorkItemStoreErrorCode.Invalid, `cannot save work item: ${field}: ${message}`);
    }
    return this.write(parsed.data.id, (stored, result) => {
      const next = parsed.data;
      const hash = planHash(next);
      checkTokenAddress(next, next.approval_token, hash);
      if (!stored) {
        if (next.status !== 'pending') fail(WorkItemStoreErrorCode.Transition, `a new work item starts as pending, not ${next.status}; save it, then update its status`);
        return { item: next, result, audit: [savedEvent(next, hash, true)] };
      }
      if (next.type !== stored.type) fail(WorkItemStoreErrorCode.Transition, `type of ${next.id} cannot change from ${stored.type} to ${next.type}; create a new work item`);
      const item = { ...next, created_at: stored.created_at };
      const audit = [savedEvent(item, hash, false)];
      const storedHash = planHash(stored);
      if (storedHash !== hash) audit.push({ event: 'silas.work_item.plan_changed', data: { work_item_id: item.id, previous_plan_hash: storedHash, plan_hash: hash } });
      return { item: checkRuntimeChange(stored, item, audit), result, audit };
    });
  }

  get(workItemId: string): WorkItem | null {
    if (!WorkItemId.safeParse(workItemId).success) return null;
    const row = this.rows.get(workItemId);
    return row ? this.audited(() => this.decode(row).item) : null;
  }

  listByStatus(status: WorkItemStatus): WorkItem[] {
    const valid = WorkItemStatus.safeParse(status);
    if (!valid.success) fail(WorkItemStoreErrorCode.Invalid, `status: ${valid.error.issues[0]!.message}`);
    return this.list('status', status);
  }

  listByParent(parentId: string): WorkItem[] {
    return this.list('parent_id', parentId);
  }

  listFollowUps(workItemId: string): WorkItem[] {
    return this.list('follow_up_of', workItemId);
  }

  updateStatus(workItemId: string, status: WorkItemStatus, budgetUsed: BudgetUsed, update: StatusUpdate = {}): WorkItem {
    const nextStatus = WorkItemStatus.safeParse(status);
    if (!nextStatus.success) fail(WorkItemStoreErrorCode.Invalid, `status: ${nextStatus.error.issues[0]!.message}`);
    const budget = BudgetUsed.safeParse(budgetUsed);
    if (!budget.success) fail(WorkItemStoreErrorCode.Invalid, `budget_used.${firstIssue(budget.error, '').field}: ${firstIssue(budget.error, '').message}`);
    const result = update.result === undefined ? undefined : parseResult(update.result, workItemId, nextStatus.data, budget.data);
    return this.write(workItemId, (stored, storedResult) => {
      if (!stored) fail(WorkItemStoreErrorCode.NotFound, `no work item ${workItemId} in the store; save it first`);
      const runs = update.verificationResults ?? [];
      const candidate = WorkItem.safeParse({
        ...stored,
        status: nextStatus.data,
        budget_used: budget.data,
        attempts: update.attempts ?? stored.attempts,
        verification_results: [...stored.verification_results, ...runs],
      });
      if (!candidate.success) {
        const { field, message } = firstIssue(candidate.error, '');
        fail(WorkItemStoreErrorCode.Invalid, `cannot update ${workItemId}: ${field}: ${message}`);
      }
      const audit: AuditItem[] = [];
      const item = checkRuntimeChange(stored, candidate.data, audit, update.reason, runs);
      if (result) {
        audit.push({
          event: 'silas.work_item.result_recorded',
          data: {
            work_item_id: workItemId,
            status: result.status,
            summary: result.summary.slice(0, 500),
            last_error: result.last_error === null ? null : result.last_error.slice(0, 500),
            verification: verificationSummary(result.verification_results),
            artifacts: Object.keys(result.artifacts).slice(0, 100),
          },
        });
      }
      return { item, result: result ?? storedResult, audit };
    });
  }

  recordResult(result: WorkItemResult, verificationRun?: readonly JsonObject[]): WorkItem {
    const parsed = WorkItemResult.safeParse(result);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error, 'result');
      fail(WorkItemStoreErrorCode.Invalid, `${field}: ${message}`);
    }
    const r = parsed.data;
    return this.updateStatus(r.work_item_id, r.status, r.budget_used, { result: r, verificationResults: verificationRun, reason: r.last_error ?? undefined });
  }

  getResult(workItemId: string): WorkItemResult | null {
    if (!WorkItemId.safeParse(workItemId).success) return null;
    const row = this.rows.get(workItemId);
    return row ? this.audited(() => this.decode(row).result) : null;
  }

  attachApprovalToken(workItemId: string, tokenInput: ApprovalToken): WorkItem {
    const token = ApprovalToken.safeParse(tokenInput);
    if (!token.success) {
      const { field, message } = firstIssue(token.error, 'approval_token');
      fail(WorkItemStoreErrorCode.Invalid, `${field}: ${message}`);
    }
    return this.write(workItemId, (stored, result) => {
      if (!stored) fail(WorkItemStoreErrorCode.NotFound, `no work item ${workItemId} in the store; save it first`);
      const hash = planHash(stored);
      checkTokenAddress(stored, token.data, hash);
      const t = token.data;
      const data: AuditEventData<'silas.work_item.approval_attached'> = {
        work_item_id: workItemId,
        token_id: t.token_id,
        token_work_item_id: t.work_item_id,
        scope: t.scope,
        plan_hash: t.plan_hash,
        executions_used: t.executions_used,
        max_executions: t.max_executions,
        key_fingerprint: t.key_fingerprint,
      };
      return { item: { ...stored, approval_token: t }, result, audit: [{ event: 'silas.work_item.approval_attached', data }] };
    });
  }

  /** Reads, changes and writes one row, with its audit entries, in one `BEGIN IMMEDIATE` transaction. */
  private write(
    workItemId: string,
    change: (stored: WorkItem | null, result: WorkItemResult | null) => { item: WorkItem; result: WorkItemResult | null; audit: AuditItem[] },
  ): WorkItem {
    const tx = () => {
      const row = this.rows.get(workItemId);
      const current = row ? this.decode(row) : { item: null, result: null };
      const { item, result, audit } = change(current.item, current.result);
      const history = item.verification_results;
      const stored = history.length > MAX_VERIFICATION_HISTORY ? { ...item, verification_results: history.slice(-MAX_VERIFICATION_HISTORY) } : item;
      const at = this.now().toISOString();
      this.rows.upsert({
        id: stored.id,
        type: stored.type,
        status: stored.status,
        parent_id: stored.parent,
        follow_up_of: stored.follow_up_of,
        plan_hash: planHash(stored),
        item_json: JSON.stringify(stored),
        result_json: result === null ? null : JSON.stringify(result),
        created_at: stored.created_at,
        updated_at: at,
      });
      // Same connection: the audit's own BEGIN IMMEDIATE becomes a savepoint of this transaction.
      this.deps.audit.appendBatch(audit);
      return stored;
    };
    return this.audited(() => inImmediateTransaction(this.deps.db, tx));
  }

  private list(column: WorkItemListColumn, key: string): WorkItem[] {
    return this.audited(() => this.rows.listBy(column, key).map((row) => this.decode(row).item));
  }

  /**
   * Runs `fn`; a corrupt row it met is recorded in the ledger before the refusal propagates.
   * Outside any transaction, so the entry survives the rollback of a refused write.
   */
  private audited<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof CorruptWorkItemError) {
        try {
          this.deps.audit.appendBatch([
            { event: 'silas.work_item.corrupt', data: { work_item_id: error.workItemId.slice(0, 200), field: error.field, reason: error.message.slice(0, 500) } },
          ]);
        } catch {
          // The refusal stands even if the ledger cannot record it.
        }
      }
      throw error;
    }
  }

  /** Parses a row, refusing one edited outside Silas: every read is validated, nothing is trusted. */
  private decode(row: Row): { item: WorkItem; result: WorkItemResult | null } {
    const corrupt = (field: string, message: string): never => {
      throw new CorruptWorkItemError(row.id, field, message);
    };
    let json: unknown;
    try {
      json = JSON.parse(row.item_json);
    } catch (error) {
      return corrupt('item_json', `not JSON (${(error as Error).message})`);
    }
    const parsed = WorkItem.safeParse(json);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error, '');
      return corrupt(field, message);
    }
    const item = parsed.data;
    const columns: Array<[string, unknown, unknown]> = [
      ['id', row.id, item.id],
      ['type', row.type, item.type],
      ['status', row.status, item.status],
      ['parent', row.parent_id, item.parent],
      ['follow_up_of', row.follow_up_of, item.follow_up_of],
      ['created_at', row.created_at, item.created_at],
    ];
    for (const [field, column, value] of columns) {
      if (column !== value) corrupt(field, `the row says ${JSON.stringify(column)} but the stored item says ${JSON.stringify(value)}`);
    }
    const hash = planHash(item);
    if (hash !== row.plan_hash) corrupt('plan_hash', `the plan was changed in the database: recorded ${row.plan_hash.slice(0, 12)}…, its content hashes to ${hash.slice(0, 12)}…`);
    let result: WorkItemResult | null = null;
    if (row.result_json !== null) {
      let resultJson: unknown;
      try {
        resultJson = JSON.parse(row.result_json);
      } catch (error) {
        return corrupt('result_json', `not JSON (${(error as Error).message})`);
      }
      const decoded = WorkItemResult.safeParse(resultJson);
      if (!decoded.success) {
        const { field, message } = firstIssue(decoded.error, 'result');
        corrupt(field, message);
      }
      result = decoded.data!;
      if (result.work_item_id !== item.id) corrupt('result.work_item_id', `the stored result belongs to ${result.work_item_id}`);
    }
    return { item, result };
  }
}

