import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { CallHandlers } from './router.js';

export interface HandlerServices {
  audit: AuditLog;
  runtimeInfo: () => RuntimeInfo;
  now?: () => Date;
}

/** Thin handlers (DESIGN convention 3): arguments are already parsed; each calls one service. */
export function createHandlers(services: HandlerServices): CallHandlers {
  const now = services.now ?? (() => new Date());
  return {
    'runtime.info': () => services.runtimeInfo(),
    'audit.list': ({ before, limit }) => services.audit.list(before, limit),
    'audit.verify': () => ({ ...services.audit.verifyChain(), verifiedAt: now().toISOString() }),
  };
}
