import { readFileSync } from 'node:fs';
import type { AgentPolicy } from '../aip/policy/types.js';
import { loadPolicyText } from '../aip/policy/load.js';
import { AlignmentRecorder, type AlignmentNotice } from '../alignment/alignment-recorder.js';
import { AlignmentService } from '../alignment/alignment-service.js';
import { CardKeeper } from '../alignment/card-keeper.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { LocationContext } from '../mcp/clients/locations.js';
import { wrappedPolicyOf } from '../mcp/silas-tools/connected-servers.js';
import type { Notifier } from '../review/notifier.js';
import { AlignmentRepository } from '../store/repositories/alignment.js';
import { inImmediateTransaction, type SqliteDatabase } from '../store/transaction.js';

/*
 * Composes alignment (issue 15; docs/alignment.md): the cards in force, the recorder that turns
 * the ledger's agent decisions into verified AP-Traces, and the service the Alignment page calls.
 */

export interface AlignmentDeps {
  db: SqliteDatabase;
  audit: AuditLog;
  signer: OwnerSigner;
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  locations: LocationContext;
  notifier: Notifier;
  now?: () => Date;
}

export interface Alignment {
  recorder: AlignmentRecorder;
  service: AlignmentService;
}

export function composeAlignment(deps: AlignmentDeps): Alignment {
  const now = deps.now ?? (() => new Date());
  const repo = new AlignmentRepository(deps.db);
  const policyForServer = (server: string, client: string | null): AgentPolicy | null => {
    const path = wrappedPolicyOf(deps.locations, server, client);
    if (path === null) return null;
    try {
      const loaded = loadPolicyText(readFileSync(path, 'utf8'), { sourcePath: path, trustedKeys: deps.trustedKeys() });
      return loaded.ok ? loaded.policy : null;
    } catch {
      return null;
    }
  };
  const cards = new CardKeeper({ repo, audit: deps.audit, signer: deps.signer, trustedKeys: deps.trustedKeys, policyForServer, now });
  const notify = (notice: AlignmentNotice) => deps.notifier.notify({ title: notice.title, body: notice.body, urgency: notice.kind === 'violation' ? 'critical' : 'normal' });
  const recorder = new AlignmentRecorder({ repo, cards, audit: deps.audit, transact: (fn) => inImmediateTransaction(deps.db, fn), signer: deps.signer, trustedKeys: deps.trustedKeys, notify, now });
  const service = new AlignmentService({ repo, cards, audit: deps.audit, trustedKeys: deps.trustedKeys, recorderPosition: () => recorder.position, now });
  return { recorder, service };
}
