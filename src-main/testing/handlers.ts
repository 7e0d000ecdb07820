import { calls } from '../../src-shared/contract/calls.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { CallHandlers, HandlerServicesLike } from './handler-types.js';
import type Database from 'better-sqlite3';
import { ServersService } from '../mcp/servers/servers-service.js';
import { testApprovalService, testSigner } from './approvals.js';
import { testStandingService } from '../approvals/standing-test-support.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientsService } from '../mcp/clients/clients-service.js';
import { ApprovalEngine } from '../silas/approval/engine.js';
import { PlanApprovalService } from '../silas/review/plan-approval-service.js';

/** Every contract call answering "not part of this test", for tests that only exercise a few calls. */
export function unusedHandlers(): CallHandlers {
  return Object.fromEntries(
    Object.keys(calls).map((name) => [
      name,
      () => {
        throw new Error(`${name} is not part of this test`);
      },
    ]),
  ) as unknown as CallHandlers;
}

/** The real services behind the handlers, over a test database. */
export function testServices(db: Database.Database, audit: AuditLog): HandlerServicesLike {
  return {
    approvals: testApprovalService(audit),
    servers: new ServersService(db, audit),
    standing: testStandingService(db, audit),
    clients: unusedClients(audit),
    plans: testPlanApprovals(db, audit),
  };
}

/** Plan approvals signed by the test owner key, with notifications and queue events dropped. */
export function testPlanApprovals(db: Database.Database, audit: AuditLog): PlanApprovalService {
  const engine = new ApprovalEngine({ db, audit, signer: testSigner() });
  return new PlanApprovalService({ audit, issueToken: (item) => engine.issueToken(item, { verdict: 'approved' }), notifier: { notify: () => undefined }, onChange: () => undefined });
}

/** Clients over a home and user directory that do not exist: every client lists as not found, nothing is ever written. */
export function unusedClients(audit: AuditLog): ClientsService {
  const nowhere = join(tmpdir(), 'silas-test-no-such-dir', 'nowhere');
  return new ClientsService({
    silasHome: join(nowhere, 'home'),
    audit,
    runtime: { node: '/usr/bin/node', bin: '/opt/silas/bin/silas.js' },
    locations: { platform: 'linux', env: {}, home: nowhere },
  });
}
