import { readFileSync } from 'node:fs';
import { judgePolicyText } from '../aip/policy/in-force.js';
import { AlignmentRecorder, type AlignmentNotice } from '../alignment/alignment-recorder.js';
import { AlignmentService } from '../alignment/alignment-service.js';
import { CardKeeper, type ServerPolicy } from '../alignment/card-keeper.js';
import type { SqliteAuditLog } from '../audit/audit-log.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { StateSeals } from '../keys/sealed-state.js';
import type { LocationContext } from '../mcp/clients/locations.js';
import { wrappedPolicyOf } from '../mcp/silas-tools/connected-servers.js';
import type { Notifier } from '../review/notifier.js';
import { AlignmentChainReader } from '../store/repositories/alignment-chain.js';
import { AlignmentRepository } from '../store/repositories/alignment.js';
import { inImmediateTransaction, type SqliteDatabase } from '../store/transaction.js';

/*
 * Composes alignment (docs/alignment.md): the cards in force, the recorder that turns
 * the ledger's agent decisions into verified AP-Traces, and the service the Alignment page calls.
 */

export interface AlignmentDeps {
  db: SqliteDatabase;
  /** Also authenticates the single `mcp.proxy_started` row a card's policy is taken from. */
  audit: SqliteAuditLog;
  signer: OwnerSigner;
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  /** The ledger's seals (docs/architecture.md §2 "Sealed state"): the page's rows are sealed with the ledger key. */
  seals: StateSeals;
  locations: LocationContext;
  notifier: Notifier;
  now?: () => Date;
}

export interface Alignment {
  recorder: AlignmentRecorder;
  service: AlignmentService;
}

/** Start rows read for a server/client pair; past that many planted rows the card falls back to the wrapped entry's policy, or to none (every action a violation). */
const RECORDED_STARTS_READ = 20;

export function composeAlignment(deps: AlignmentDeps): Alignment {
  const now = deps.now ?? (() => new Date());
  const repo = new AlignmentRepository(deps.db);
  const chain = new AlignmentChainReader(deps.db);
  // A card is derived only from the policy a proxy would enforce (DESIGN invariant 13): signed by
  // the owner and the text put in force for its path (aip/policy/in-force.ts). Neither an unsigned
  // edit nor an older signed copy put back is signed into the card (docs/alignment.md).
  // The policy is the one the proxy recorded at its start (a proxy started by hand, or by Silas as
  // its caller, has no wrapped entry), else its wrapped entry's (proxies from before starts named it).
  // Only a start row the ledger key authenticates counts: a row planted or edited in the database
  // cannot point a card at another policy (docs/architecture.md §2 "Sealed state").
  const recordedPolicyFile = (server: string, client: string | null): string | null => {
    const row = chain.proxyStartsNamingPolicy(server, client, RECORDED_STARTS_READ).find((candidate) => deps.audit.authenticRow(candidate));
    const file = row ? (JSON.parse(row.data) as { policy_file?: unknown }).policy_file : null;
    return typeof file === 'string' ? file : null;
  };
  const policyForServer = (server: string, client: string | null): ServerPolicy => {
    const path = recordedPolicyFile(server, client) ?? wrappedPolicyOf(deps.locations, server, client);
    if (path === null) return null;
    try {
      const judged = judgePolicyText(readFileSync(path, 'utf8'), { path, trustedKeys: deps.trustedKeys(), seals: deps.seals });
      if (judged.ok) return { ok: true, policy: judged.policy };
      if (judged.invalid) return { ok: false, path, reason: `does not load (${judged.errors[0]?.message ?? 'invalid'})` };
      return { ok: false, path, reason: judged.detail };
    } catch (error) {
      return { ok: false, path, reason: `cannot be read (${(error as Error).message})` };
    }
  };
  const cards = new CardKeeper({ repo, audit: deps.audit, signer: deps.signer, trustedKeys: deps.trustedKeys, policyForServer, anchors: deps.seals, now });
  const notify = (notice: AlignmentNotice) => deps.notifier.notify({ title: notice.title, body: notice.body, urgency: notice.kind === 'violation' ? 'critical' : 'normal' });
  const recorder = new AlignmentRecorder({ repo, chain, seals: deps.seals, cards, audit: deps.audit, transact: (fn) => inImmediateTransaction(deps.db, fn), signer: deps.signer, trustedKeys: deps.trustedKeys, notify, now });
  const service = new AlignmentService({ repo, chain, seals: deps.seals, cards, audit: deps.audit, trustedKeys: deps.trustedKeys, recorderPosition: () => recorder.position, now });
  return { recorder, service };
}
