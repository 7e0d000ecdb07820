import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { StandingApprovalService } from '../approvals/standing-service.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ClientsService } from '../mcp/clients/clients-service.js';
import type { ServersService } from '../mcp/servers/servers-service.js';
import type { PlanApprovalService } from '../silas/review/plan-approval-service.js';
import type { CallContext, CallHandlers } from './router.js';

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

/**
 * Proxies ask; only the person at the cockpit answers. A process that holds the control token
 * (every proxy does) must never be able to approve its own request, so each side is bound to
 * its transport: requests come over the local socket, decisions over the cockpit's transports.
 */
function requireTransport(ctx: CallContext, allowed: readonly CallContext['transport'][], call: string): void {
  if (!allowed.includes(ctx.transport)) {
    throw new SilasError(ErrorCode.Unauthorized, `${call} is not accepted over ${ctx.transport}`);
  }
}

/** Thin handlers (DESIGN convention 3): arguments are already parsed; each calls one service. */
export function createHandlers(services: HandlerServices): CallHandlers {
  const now = services.now ?? (() => new Date());
  return {
    'runtime.info': () => services.runtimeInfo(),
    'audit.list': ({ before, limit }) => services.audit.list(before, limit),
    'audit.verify': () => ({ ...services.audit.verifyChain(), verifiedAt: now().toISOString() }),
    'approvals.request': (args, ctx) => {
      requireTransport(ctx, ['local-socket', 'in-process'], 'approvals.request');
      return services.approvals.request(args);
    },
    'approvals.list': () => ({ pending: services.approvals.list(), paused: services.approvals.isPaused() }),
    'plans.requestApproval': (args, ctx) => {
      requireTransport(ctx, ['local-socket', 'in-process'], 'plans.requestApproval');
      return services.plans.request(args);
    },
    'plans.list': () => ({ pending: services.plans.list() }),
    'plans.decide': ({ id, decision }, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'plans.decide');
      return services.plans.decide(id, decision);
    },
    'approvals.decide': ({ id, decision }, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'approvals.decide');
      return services.approvals.decide(id, decision);
    },
    'approvals.listStanding': () => ({ standing: services.standing.list().map(({ signature: _signature, revokedAt: _revokedAt, ...view }) => view) }),
    'approvals.revokeStanding': ({ id }, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'approvals.revokeStanding');
      return { id: services.standing.revoke(id).id };
    },
    'servers.list': () => ({ servers: services.servers.list() }),
    'servers.approveToolChange': ({ server, tool, hash }, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'servers.approveToolChange');
      return services.servers.approveToolChange(server, tool, hash);
    },
    'clients.list': () => ({ clients: services.clients.list() }),
    // A proxy holds the control token too; it must never read a preview meant for the person, nor rewrite a client's configuration.
    'clients.planWrap': (args, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'clients.planWrap');
      return services.clients.planWrap(args);
    },
    'clients.wrap': (args, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'clients.wrap');
      return services.clients.wrap(args);
    },
    'clients.unwrap': ({ client }, ctx) => {
      requireTransport(ctx, ['ipc', 'websocket', 'in-process'], 'clients.unwrap');
      return services.clients.unwrap({ client });
    },
  };
}
