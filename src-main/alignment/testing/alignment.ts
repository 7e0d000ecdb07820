import { join } from 'node:path';
import { openHome, type Ledger } from '../../app/home.js';
import { loadPolicyText } from '../../aip/policy/load.js';
import type { AgentPolicy } from '../../aip/policy/types.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { AlignmentChainReader } from '../../store/repositories/alignment-chain.js';
import { AlignmentRepository } from '../../store/repositories/alignment.js';
import { inImmediateTransaction } from '../../store/transaction.js';
import { AlignmentRecorder, type AlignmentNotice } from '../alignment-recorder.js';
import { AlignmentService } from '../alignment-service.js';
import { CardKeeper, type ServerPolicy } from '../card-keeper.js';

/** A policy for the `files` server: reads allowed, writes ask, deletes blocked. */
export const FILES_POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files
spec:
  allowed_tools: [read_file, list_directory, write_file]
  tool_rules:
    - tool: write_file
      action: ask
    - tool: delete_file
      action: block
`;

export function loadTestPolicy(text = FILES_POLICY): AgentPolicy {
  const loaded = loadPolicyText(text);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('; '));
  return loaded.policy;
}

export interface AlignmentHarness {
  ledger: Ledger;
  repo: AlignmentRepository;
  cards: CardKeeper;
  recorder: AlignmentRecorder;
  service: AlignmentService;
  notices: AlignmentNotice[];
  /** A proxy's policy decision on a tools/call, as `silas proxy` records it. */
  decide(tool: string, decision: 'ALLOW' | 'ALLOW_MONITOR' | 'BLOCK' | 'ASK', extra?: Record<string, unknown>): void;
  /** Everything recorded so far. */
  drain(): void;
  /** A recorder and service as a restarted runtime would build them, over the same ledger. */
  restart(): AlignmentHarness;
  events(name: string): Array<Record<string, unknown>>;
}

/**
 * What a server's wrapped entry names: a policy signed by the owner key, one that is not signed
 * (`'unsigned'`: an edit made outside the cockpit), or none (null).
 */
export type TestPolicy = AgentPolicy | 'unsigned' | null;

function serverPolicy(server: string, policy: TestPolicy | undefined): ServerPolicy {
  if (policy === 'unsigned') return { ok: false, path: `/home/ada/.silas/policies/${server}.yaml`, reason: 'is not signed by the owner key (changed outside the cockpit?); adopt it on the Policies page' };
  return policy ? { ok: true, policy } : null;
}

/** A ledger with a keyring-held owner key, and alignment composed over it as the runtime does. */
export function alignmentHarness(dir: string, policies: Record<string, TestPolicy> = { files: loadTestPolicy() }, existing?: Ledger): AlignmentHarness {
  const ledger = existing ?? openHome(join(dir, 'home'), { create: true, keys: 'signer', secretStore: new MemorySecretStore() });
  const repo = new AlignmentRepository(ledger.db);
  const notices: AlignmentNotice[] = [];
  const now = () => new Date();
  const chain = new AlignmentChainReader(ledger.db);
  const cards = new CardKeeper({ repo, audit: ledger.audit, signer: ledger.signer!, trustedKeys: () => ledger.trustedKeys(), policyForServer: (server) => serverPolicy(server, policies[server]), anchors: ledger.seals, now });
  const recorder = new AlignmentRecorder({ repo, chain, seals: ledger.seals, cards, audit: ledger.audit, transact: (fn) => inImmediateTransaction(ledger.db, fn), signer: ledger.signer!, trustedKeys: () => ledger.trustedKeys(), notify: (n) => notices.push(n), now });
  const service = new AlignmentService({ repo, chain, seals: ledger.seals, cards, audit: ledger.audit, trustedKeys: () => ledger.trustedKeys(), recorderPosition: () => recorder.position, now });
  let seq = 0;
  const harness: AlignmentHarness = {
    ledger,
    repo,
    cards,
    recorder,
    service,
    notices,
    decide(tool, decision, extra = {}) {
      seq += 1;
      ledger.audit.append('aip.decision', {
        direction: 'upstream',
        decision,
        policy_mode: 'enforce',
        violation: decision !== 'ALLOW',
        method: 'tools/call',
        tool,
        args: { path: `/home/ada/notes/${seq}.md` },
        server: 'files',
        session_id: 'proxy-session-1',
        ...extra,
      } as never);
    },
    drain() {
      while (recorder.recordPage() > 0);
    },
    restart: () => alignmentHarness(dir, policies, ledger),
    events: (name) =>
      ledger.audit
        .tail(100_000)
        .filter((e) => e.event === name)
        .map((e) => e.data as Record<string, unknown>),
  };
  return harness;
}
