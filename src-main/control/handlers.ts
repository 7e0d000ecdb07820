import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { StandingApprovalService } from '../approvals/standing-service.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ClientsService } from '../mcp/clients/clients-service.js';
import type { ServersService } from '../mcp/servers/servers-service.js';
import type { PlanApprovalService } from '../silas/review/plan-approval-service.js';
import type { CallHandlers } from './router.js';

export interface HandlerServices {
  audit: AuditLog;
  approvals: Pick<ApprovalService, 'request' | 'decide' | 'list' | 'isPaused'>;
  servers: Pick<ServersService, 'list' | 'approveToolChange'>;
  standing: Pick<StandingApprovalService, 'list' | 'revoke'>;
  clients: Pick<ClientsService, 'list' | 'planWrap' | 'wrap' | 'unwrap'>;
  plans: Pick<PlanApprovalService, 'request' | 'decide' | 'list'>;
  runtimeInfo: () => RuntimeInfo;
  now?: () => Date;
}

/** Thin handlers (docs/architecture.md §4.3): arguments are parsed and the caller's access checked by the router; each calls one service. */
export function createHandlers(services: HandlerServices): CallHandlers {
  const now = services.now ?? (() => new Date());
  return {
    'runtime.info': () => services.runtimeInfo(),
    'audit.list': ({ before, limit }) => services.audit.list(before, limit),
    'audit.verify': () => ({ ...services.audit.verifyChain(), verifiedAt: now().toISOString() }),
    'approvals.request': (args) => services.approvals.request(args),
    'approvals.list': () => ({ pending: services.approvals.list(), paused: services.approvals.isPaused() }),
    'plans.requestApproval': (args) => services.plans.request(args),
    'plans.list': () => ({ pending: services.plans.list() }),
    'plans.decide': ({ id, decision }) => services.plans.decide(id, decision),
    'approvals.decide': ({ id, decision }) => services.approvals.decide(id, decision),
    'approvals.listStanding': () => ({ standing: services.standing.list().map(({ signature: _signature, revokedAt: _revokedAt, ...view }) => view) }),
    'approvals.revokeStanding': ({ id }) => ({ id: services.standing.revoke(id).id }),
    'servers.list': () => ({ servers: services.servers.list() }),
    'servers.approveToolChange': ({ server, tool, hash }) => services.servers.approveToolChange(server, tool, hash),
    'clients.list': () => ({ clients: services.clients.list() }),
    'clients.planWrap': (args) => services.clients.planWrap(args),
    'clients.wrap': (args) => services.clients.wrap(args),
    'clients.unwrap': ({ client }) => services.clients.unwrap({ client }),
  };
}
