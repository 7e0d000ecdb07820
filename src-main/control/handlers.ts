import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import type { StandingApprovalService } from '../approvals/standing-service.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ChainVerifier } from '../audit/chain-verifier.js';
import type { ClientsService } from '../mcp/clients/clients-service.js';
import type { ServersService } from '../mcp/servers/servers-service.js';
import type { DecisionQueue } from '../review/decision-queue.js';
import type { PlanKind } from '../review/kinds/plan.js';
import type { ToolCallKind } from '../review/kinds/tool-call.js';
import type { CallHandlers } from './router.js';

export interface HandlerServices {
  audit: AuditLog;
  /**
   * Chain verification in a worker thread (the runtime always has one). Without it (tests of
   * other calls) `audit.verify` verifies in-process, and there is no status or cancel.
   */
  verifier?: Pick<ChainVerifier, 'verify' | 'status' | 'cancel'>;
  /** The one queue of decisions; askers are pointed at their kind, the cockpit answers any card. */
  review: Pick<DecisionQueue, 'ask' | 'decide' | 'view'>;
  kinds: { toolCall: ToolCallKind; plan: PlanKind };
  servers: Pick<ServersService, 'list'>;
  standing: Pick<StandingApprovalService, 'list' | 'revoke'>;
  clients: Pick<ClientsService, 'list' | 'planWrap' | 'wrap' | 'unwrap'>;
  runtimeInfo: () => RuntimeInfo;
  now?: () => Date;
}

/** Thin handlers (docs/architecture.md §4.3): arguments are parsed and the caller's access checked by the router; each calls one service. */
export function createHandlers(services: HandlerServices): CallHandlers {
  const now = services.now ?? (() => new Date());
  const { review, kinds } = services;
  return {
    'runtime.info': () => services.runtimeInfo(),
    'audit.list': ({ before, limit }) => services.audit.list(before, limit),
    'audit.verify': ({ mode }) =>
      services.verifier?.verify(mode) ?? inProcessVerify(services.audit, now),
    'audit.verifyStatus': () => services.verifier?.status() ?? { last: null, running: null, error: null },
    'audit.cancelVerify': () => ({ cancelled: services.verifier?.cancel() ?? false }),
    'approvals.request': (args) => review.ask(kinds.toolCall, args),
    'plans.requestApproval': (args) => review.ask(kinds.plan, args),
    'review.list': () => review.view(),
    'review.decide': ({ id, choice }) => review.decide(id, choice),
    'approvals.listStanding': () => ({ standing: services.standing.list().map(({ signature: _signature, revokedAt: _revokedAt, ...view }) => view) }),
    'approvals.revokeStanding': ({ id }) => ({ id: services.standing.revoke(id).id }),
    'servers.list': () => ({ servers: services.servers.list() }),
    'clients.list': () => ({ clients: services.clients.list() }),
    'clients.planWrap': (args) => services.clients.planWrap(args),
    'clients.wrap': (args) => services.clients.wrap(args),
    'clients.unwrap': ({ client }) => services.clients.unwrap({ client }),
  };
}

function inProcessVerify(audit: AuditLog, now: () => Date) {
  const result = audit.verifyChain();
  return { ...result, mode: 'full' as const, fromIndex: 0, checked: result.entries, verifiedUpTo: null, verifiedAt: now().toISOString() };
}
