import { calls } from '../../src-shared/contract/calls.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { CallHandlers, HandlerServicesLike } from './handler-types.js';
import type { SqliteDatabase } from '../store/transaction.js';
import { ServersService } from '../mcp/servers/servers-service.js';
import { testReview } from './approvals.js';
import { testStandingService } from '../approval/standing/testing/standing.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientsService } from '../mcp/clients/clients-service.js';
import { ToolChangeDecisions } from '../review/kinds/tool-change.js';
import type { PinSealer } from '../store/repositories/tool-pins.js';
import { toolPinSealer } from '../mcp/tool-pin-seals.js';
import { memorySeals } from './seals.js';

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

/** The real services behind the handlers, over a test database (one decision queue, as the runtime wires it). */
export function testServices(db: SqliteDatabase, audit: AuditLog, pinSealer: PinSealer = toolPinSealer(memorySeals().seals)): HandlerServicesLike {
  const { review, kinds } = testReview(db, audit, { sources: [new ToolChangeDecisions(db, audit, pinSealer)] });
  return {
    review,
    kinds,
    servers: new ServersService(db, pinSealer),
    standing: testStandingService(db, audit),
    clients: unusedClients(audit),
  };
}

/** Clients over a home and user directory that do not exist: every client lists as not found, nothing is ever written. */
function unusedClients(audit: AuditLog): ClientsService {
  const nowhere = join(tmpdir(), 'silas-test-no-such-dir', 'nowhere');
  return new ClientsService({
    silasHome: join(nowhere, 'home'),
    audit,
    runtime: { node: '/usr/bin/node', bin: '/opt/silas/bin/silas.js' },
    locations: { platform: 'linux', env: {}, home: nowhere },
  });
}
