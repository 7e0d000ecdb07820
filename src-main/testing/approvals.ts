import type { AuditLog } from '../audit/audit-log.js';
import { argumentsHash, type ToolCallBinding } from '../approval/tool-call.js';
import { ApprovalConsumer } from '../mcp/proxy/approval-consumer.js';
import { createTestLedger } from './ledger.js';
import type { StandingApprovalService } from '../approval/standing/service.js';
import { OwnerKeyVault, type OwnerSigner } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { DecisionQueue, type StandingDecisions } from '../review/decision-queue.js';
import { planKind } from '../review/kinds/plan.js';
import { toolCallKind } from '../review/kinds/tool-call.js';
import { ApprovalEngine } from '../approval/engine.js';
import { SqliteWorkItemStore } from '../silas/store/work-item-store.js';
import type { SqliteDatabase } from '../store/transaction.js';
import type { Notifier } from '../review/notifier.js';
import type { AskLimits } from '../review/ask-caps.js';
import { workItemSubject } from '../silas/work/plan-subjects.js';

/** An in-memory owner key, for tests that need signatures but not the keyring. */
function testSigner(): OwnerSigner {
  return new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
}

export interface TestReviewOptions {
  signer?: OwnerSigner;
  standing?: Pick<StandingApprovalService, 'create'>;
  notifier?: Notifier;
  now?: () => Date;
  sources?: readonly StandingDecisions[];
  pausedElsewhere?: () => boolean;
  limits?: AskLimits;
}

/**
 * The runtime's decision system over a test database, wired as `app/runtime.ts` wires it: one
 * queue, one approval engine that signs tool calls and plans, and the two asking kinds.
 */
export function testReview(db: SqliteDatabase, audit: AuditLog, options: TestReviewOptions = {}) {
  const signer = options.signer ?? testSigner();
  const now = options.now;
  const engine = new ApprovalEngine({ db, audit, signer, ...(now ? { now } : {}) });
  const queue = new DecisionQueue({
    audit,
    notifier: options.notifier ?? { notify: () => undefined },
    ...(now ? { now } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.pausedElsewhere ? { pausedElsewhere: options.pausedElsewhere } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const workItems = new SqliteWorkItemStore({ db, audit, ...(now ? { now } : {}) });
  const kinds = {
    toolCall: toolCallKind({ audit, engine, ...(options.standing ? { standing: options.standing } : {}) }),
    plan: planKind({ audit, issueToken: (item) => engine.issueToken(workItemSubject(item), { verdict: 'approved' }), planIds: { stored: (id) => workItems.get(id) } }),
  };
  return { queue, kinds, engine, signer, review: queue, workItems };
}

/**
 * What a proxy does with a tool-call token, on a ledger of its own trusting `keys`: verify it
 * against the call and consume it. A test asks it about a token's binding without touching the
 * ledger under test.
 */
export function proxyVerifier(dir: string, keys: ReadonlyMap<string, Uint8Array>) {
  const ledger = createTestLedger(dir);
  const consumer = new ApprovalConsumer(ledger.db, ledger.audit, () => keys, undefined);
  return (token: unknown, call: CallWithArgs) => consumer.consume(token, bindingOf(call), () => undefined);
}

/** A tool call as a test writes it: with its arguments, which the proxy hashes once. */
export type CallWithArgs = Omit<ToolCallBinding, 'argsHash'> & { args: unknown };

export function bindingOf({ args, ...call }: CallWithArgs): ToolCallBinding {
  return { ...call, argsHash: argumentsHash(args) };
}
