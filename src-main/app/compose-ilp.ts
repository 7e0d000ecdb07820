import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ModelRole } from '../../src-shared/llm/config.js';
import type { JsonValue } from '../../src-shared/schemas/json.js';
import type { IlpCompositionSummary, IlpCompositionView } from '../../src-shared/schemas/ilp.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { StateSeals } from '../keys/sealed-state.js';
import type { NamedSecrets } from '../keys/named-secrets.js';
import type { IlpAgent } from '../ilp/agents/agent.js';
import type { EnforcerOptions } from '../ilp/constitution/enforce.js';
import { IlpConfigSource, type LoadedIlpConfig } from '../ilp/config/sealed-ilp-config.js';
import { remoteSpecialists } from '../ilp/config/remote-specialists.js';
import type { ModelClient } from '../llm/model-client.js';
import { steeringIn } from '../ilp/composition/steering.js';
import type { ModelSource } from '../ilp/agents/agent.js';
import { specialistAgent, type LoadedSlice } from '../ilp/agents/specialist.js';
import { MetaAgent, type AgentDirectory, type CompositionResult } from '../ilp/composition/meta-agent.js';
import { requestMessage, throughCodec } from '../ilp/composition/messages.js';
import { checkConstitutionalHeader } from '../ilp/constitution/header.js';
import { SliceNavigator } from '../ilp/navigator/navigator.js';
import { EpisodicMemory } from '../ilp/memory/episodic-memory.js';
import { episodeSealer } from '../ilp/memory/episode-seals.js';
import { AttentionTracker } from '../ilp/attention/tracker.js';
import { HEADER, headerOf, type IlpRequest } from '../ilp/protocol/message.js';
import { IlpService, type CompositionSink } from '../ilp/service/ilp-service.js';
import type { IlpInspector, IlpLearning } from '../control/ilp-inspector.js';
import type { SliceProposals } from '../review/kinds/ilp-slice.js';
import { SliceEvolution } from '../ilp/evolution/evolution.js';
import { deployedAnchors, sliceVersionSealer } from '../ilp/evolution/slice-version-seals.js';
import { IlpCompositionRepository } from '../store/repositories/ilp-compositions.js';
import type { SqliteDatabase } from '../store/transaction.js';

/*
 * ILP in the runtime (docs/ilp.md): the navigator over the shipped slices and the home's own, one
 * specialist per slice domain on the executor role's model, the meta-agent on the planner's, the
 * service both transports hand requests to, and where compositions go — the sealed store the
 * inspector reads, the ledger (every hop, every composition, every export), and through the
 * ledger the Alignment recorder, which makes each composition an AP-Trace of the meta-agent.
 */

export function shippedSlicesDir(): string {
  return fileURLToPath(new URL('../../resources/slices/', import.meta.url));
}

export interface IlpComposition {
  service: IlpService;
  inspector: IlpInspector;
  navigator: SliceNavigator;
  /** Knowledge distillation for the cockpit, and its proposals for Review (docs/ilp.md "Knowledge distillation"). */
  learning: IlpLearning;
  proposals: SliceProposals;
  /** HOME/ilp.yaml as it is in force now (docs/ilp.md "Configuration"). */
  config(): LoadedIlpConfig;
  close(): void;
}

export interface IlpCompositionDeps {
  db: SqliteDatabase;
  audit: Pick<AuditLog, 'append'>;
  seals: Pick<StateSeals, 'seal' | 'check' | 'verify' | 'anchor' | 'checkAnchored' | 'verifyAnchored'>;
  /** The data home, for HOME/ilp.yaml. */
  home: string;
  /** The keyring's secrets, for remote specialists' credentials. */
  secrets: Pick<NamedSecrets, 'get' | 'releasable'>;
  /** The model of a role, as the Stream reads it (HOME/models.json, sealed). */
  model: (role: ModelRole) => Promise<{ ok: true; client: ModelClient } | { ok: false; problem: string }>;
  sliceDirs: readonly string[];
  /** Called when proposals or learned slices change (Review's standing cards are read again). */
  onSlicesChanged?: () => void;
  now?: () => Date;
}

type TrustedIlpConfig = Extract<LoadedIlpConfig, { ok: true }>;

export function composeIlp(deps: IlpCompositionDeps): IlpComposition {
  const now = deps.now ?? (() => new Date());
  const navigator = new SliceNavigator(deps.sliceDirs);
  const repo = new IlpCompositionRepository(deps.db, {
    seal: (id, fields) => deps.seals.seal('ledger', 'ilp-composition', id, fields),
    check: (id, fields, seal) => deps.seals.check('ledger', 'ilp-composition', id, fields, seal).ok,
  });
  const modelOf =
    (role: ModelRole): ModelSource =>
    async () => {
      const got = await deps.model(role);
      return got.ok ? got.client : { problem: got.problem };
    };
  const slices = {
    forQuery(query: string, domain: string, limit: number): LoadedSlice[] {
      const inDomain = new Set(navigator.searchByDomain(domain));
      const ids = [...navigator.search(query, { limit: 50 }).map((h) => h.slice_id).filter((id) => inDomain.has(id)), ...inDomain];
      return [...new Set(ids)].slice(0, limit).flatMap((id) => {
        const loaded = navigator.loadSlice(id);
        return loaded ? [{ id, title: loaded.slice.metadata.title, concepts: loaded.slice.metadata.concepts, knowledge: loaded.slice.knowledge }] : [];
      });
    },
  };
  // HOME/ilp.yaml, sealed by the owner: custom principles, forbidden translations and remote
  // specialists, read again when it changes; while it is refused every request is a 503. It is
  // looked at once per request (`refreshConfig`), and every hop of that request is judged by the
  // same snapshot, not by a file checked again on each of its enforcer calls.
  const config = new IlpConfigSource(deps.home, deps.seals);
  let snapshot = config.current();
  const refreshConfig = () => (snapshot = config.current());
  const inForce = (): TrustedIlpConfig | null => (snapshot.ok ? snapshot : null);
  const enforcer: EnforcerOptions = {
    get forbiddenTranslations() {
      return inForce()?.forbiddenTranslations ?? [];
    },
    get principles() {
      return inForce()?.principles;
    },
  };
  // Episodic memory (§9.2 item 3): sealed episodes, so a database writer cannot plant a cached answer.
  const memory = new EpisodicMemory(deps.db, episodeSealer(deps.seals), { now: () => now().getTime() });
  // Knowledge distillation (§4.3): learned slices live in the sealed registry, deployed into the
  // navigator at start and at once when the owner deploys one in Review.
  const evolution = new SliceEvolution({ db: deps.db, memory, model: modelOf('planner'), screen: steeringIn, sealer: sliceVersionSealer(deps.seals),
    // Each slice's row in force anchored in the keyring: an older sealed copy put back is refused.
    anchors: deployedAnchors(deps.seals),
    audit: deps.audit,
    navigator,
    enforcer,
    now,
  });
  evolution.restoreDeployed();
  let local = specialistsOf(navigator, modelOf('executor'), slices);
  const slicesChanged = () => {
    // A learned slice may bring a domain no specialist answered for.
    local = specialistsOf(navigator, modelOf('executor'), slices);
    deps.onSlicesChanged?.();
  };
  const agents = directoryOf({ get: (id) => local.get(id), specialists: () => local.specialists() }, () => inForce(), deps.secrets);
  const meta = new MetaAgent({ model: modelOf('planner'), agents, enforcer, screen: steeringIn, memory });
  const listeners = new Set<(summary: IlpCompositionSummary) => void>();
  // Statistics and patterns over the recent compositions (§4.1): the last ones stored, then each new one.
  const attention = new AttentionTracker({ maxQueries: ATTENTION_WINDOW, now: () => now().getTime() });
  for (const summary of repo.list(undefined, ATTENTION_WINDOW).compositions.reverse()) {
    const detail = summary.trusted ? repo.trustedDetail(summary.id) : null;
    if (detail) track(attention, summary.id, detail.query, detail.decision_path, allTraces(detail.hop_list));
  }
  const sink: CompositionSink = {
    completed(result, info) {
      const root = result.hops[0]!;
      const maxDepth = Math.max(...result.hops.map((h) => h.depth));
      const costUsd = Math.max(0, result.costUsd);
      const decisionPath = (headerOf(result.response, HEADER.reasoningTrace)?.value as { decision_path?: string[] } | undefined)?.decision_path ?? [];
      repo.insert({
        id: result.id,
        query: info.query,
        status: result.response.status,
        constitutional_status: root.constitutional_status,
        started_at: info.startedAt.toISOString(),
        cost_usd: costUsd,
        hops: result.hops.length,
        max_depth: maxDepth,
        replay_of: info.replayOf,
        answer: result.answer,
        detail: { hop_list: result.hops, influencers: result.influencers, decision_path: decisionPath },
      });
      recordHops(deps.audit, result);
      track(attention, result.id, info.query, decisionPath, allTraces(result.hops));
      deps.audit.append('ilp.composition', { composition_id: result.id, query_sha256: sha256(info.query), status: result.response.status, constitutional_status: root.constitutional_status, cost_usd: costUsd, hops: result.hops.length, max_depth: maxDepth, replay_of: info.replayOf });
      // This composition's row as the inspector lists it (its seal checked), not merely the newest row.
      const stored = repo.get(result.id);
      if (stored) {
        const { answer: _answer, hop_list: _hops, influencers: _influencers, ...summary } = stored;
        for (const listener of listeners) listener(summary);
      }
    },
    attentionExport(queryId) {
      const detail = repo.trustedDetail(queryId);
      if (detail === null) return null;
      const traces = allTraces(detail.hop_list);
      const top = [...detail.influencers];
      const exported = { export_timestamp: Math.floor(now().getTime() / 1000), query_id: queryId, query: detail.query, timestamp: Math.floor(Date.parse(detail.started_at) / 1000), decision_path: detail.decision_path, traces, total_concepts: new Set(traces.map((t) => t.concept)).size, top_influencers: top };
      deps.audit.append('ilp.attention_export', { composition_id: queryId, total_concepts: exported.total_concepts, top_influencers: top as unknown as JsonValue });
      return exported as unknown as JsonValue;
    },
    attentionStatistics: () => attention.statistics() as unknown as JsonValue,
  };
  const stopped = () => {
    const loaded = refreshConfig();
    return loaded.ok ? null : loaded.problem;
  };
  const service = new IlpService({ meta, agents, enforcer, screen: steeringIn, sink, now, stopped });
  const inspector: IlpInspector = {
    list: (args) => repo.list(args.before, args.limit),
    get: (id) => repo.get(id),
    replay: (args) => replay(repo, service, args.id, args.constitutional_header),
    onComposition(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  // A distillation still asking the model when the runtime stops ends there, proposing nothing more.
  const stopping = new AbortController();
  const learning: IlpLearning = {
    async distill(args) {
      // Candidates are judged by the principles in force now, as a request would be.
      const loaded = refreshConfig();
      if (!loaded.ok) throw new SilasError(ErrorCode.Config, loaded.problem);
      const result = await evolution.distill({ minFrequency: args.min_frequency, maxCandidates: args.max_candidates, signal: stopping.signal });
      slicesChanged();
      return {
        patterns: result.patterns.length,
        proposed: result.proposed.map((c) => ({ id: c.id, slice_id: c.slice_id, version: c.version, title: c.title })),
        rejected: result.rejected.map((r) => ({ concepts: r.pattern.concepts, reasons: r.reasons })),
        skipped: result.skipped.length,
        untrusted_episodes: result.untrusted_episodes,
      };
    },
    slices: () => ({
      slices: evolution.learned().map((s) => ({ ...s, history: s.history.map(({ id, version, kind, status, title, sha256, created_at, decided_at, trusted }) => ({ id, version, kind, status, title, sha256, created_at, decided_at, trusted })) })),
      untrusted: evolution.untrusted().length,
    }),
    rollback(args) {
      const result = evolution.rollback(args.slice_id, args.to_version);
      slicesChanged();
      return result;
    },
  };
  const proposals: SliceProposals = {
    proposed: () => evolution.proposed(),
    inForceText: (sliceId) => evolution.history(sliceId).find((v) => v.status === 'deployed' && v.trusted)?.text ?? null,
    deploy(candidateId) {
      const deployed = evolution.deploy(candidateId);
      slicesChanged();
      return deployed;
    },
    decline: (candidateId) => evolution.decline(candidateId),
  };
  return { service, inspector, navigator, learning, proposals, config: refreshConfig,
    close() {
      stopping.abort(new Error('the runtime is stopping'));
      navigator.close();
    },
  };
}

/** Compositions the attention statistics cover. */
const ATTENTION_WINDOW = 200;

/** One composition's attention into the tracker; a trace it refuses (a weight out of range from a remote agent) is left out. */
function track(tracker: AttentionTracker, id: string, query: string, path: readonly string[], traces: readonly { concept: string; slice: string; weight: number; reasoning: string }[]): void {
  try {
    tracker.startQuery(id, query.slice(0, 10_000));
  } catch {
    return;
  }
  for (const step of path.slice(0, 100)) ignoreRefusal(() => tracker.addDecisionPoint(step));
  for (const trace of traces.slice(0, 100)) ignoreRefusal(() => tracker.addTrace(trace));
  tracker.endQuery();
}

function ignoreRefusal(fn: () => void): void {
  try {
    fn();
  } catch {
    // The tracker validates what it keeps; what it refuses only leaves the statistics.
  }
}

/** One specialist per slice domain, each answering from its domain's slices on the executor role's model. */
function specialistsOf(navigator: SliceNavigator, model: ModelSource, slices: { forQuery(query: string, domain: string, limit: number): LoadedSlice[] }): AgentDirectory {
  const domains = [...new Set(navigator.ids().map((id) => navigator.loadSlice(id)?.slice.metadata.domain).filter((d): d is string => typeof d === 'string'))].sort();
  const list = domains.map((domain) => specialistAgent({ id: `${domain}-agent`, domain, description: `Answers from the ${domain} slices (${navigator.searchByDomain(domain).length}).`, model, slices }));
  return { get: (id) => list.find((a) => a.id === id), specialists: () => [...list] };
}

/**
 * The local specialists and the remote ones HOME/ilp.yaml registers, the remote ones built again
 * only when the configuration in force changes. A remote id that a local specialist already has
 * is left out: the agents on this machine keep their names.
 */
function directoryOf(local: AgentDirectory, inForce: () => TrustedIlpConfig | null, secrets: Pick<NamedSecrets, 'get' | 'releasable'>): AgentDirectory {
  let built: { from: TrustedIlpConfig | null; agents: IlpAgent[] } = { from: null, agents: [] };
  const remote = (): IlpAgent[] => {
    const loaded = inForce();
    if (built.from !== loaded) {
      const taken = new Set(local.specialists().map((a) => a.id));
      built = { from: loaded, agents: loaded ? remoteSpecialists(loaded.config.specialists.filter((s) => !taken.has(s.id)), secrets) : [] };
    }
    return built.agents;
  };
  return {
    get: (id) => local.get(id) ?? remote().find((a) => a.id === id),
    specialists: () => [...local.specialists(), ...remote()],
  };
}

function recordHops(audit: Pick<AuditLog, 'append'>, result: CompositionResult): void {
  for (const hop of result.hops) {
    audit.append('ilp.request', {
      composition_id: result.id,
      hop_id: hop.id,
      parent: hop.parent,
      agent: hop.agent,
      kind: hop.kind,
      method: hop.method,
      path: hop.path,
      depth: hop.depth,
      status: hop.status,
      constitutional_status: hop.constitutional_status,
      principle: hop.principle,
      severity: hop.severity,
      cost_usd: hop.cost_usd,
      confidence: hop.confidence,
      slices: hop.slices,
      request_sha256: sha256(hop.request_text),
      response_sha256: sha256(hop.response_text),
    });
  }
}

/** Every attention trace of the admitted hops, in hop order (§13.6 `traces`). */
function allTraces(hops: IlpCompositionView['hop_list']): { concept: string; slice: string; weight: number; reasoning: string }[] {
  const out: { concept: string; slice: string; weight: number; reasoning: string }[] = [];
  for (const hop of hops) {
    if (hop.status !== 200 && hop.status !== 207) continue;
    const split = hop.response_text.indexOf('\n\n');
    try {
      const body = JSON.parse(hop.response_text.slice(split + 2)) as { attention_traces?: { concept: string; slice: string; weight: number; reasoning: string }[] };
      for (const t of body.attention_traces ?? []) out.push({ concept: t.concept, slice: t.slice, weight: t.weight, reasoning: t.reasoning });
    } catch {
      // The root hop's body is the composed answer, written by us; a hop without traces adds none.
    }
  }
  return out;
}

/** Sends a stored composition's query again under an edited header, as a new composition marked as its replay. */
async function replay(repo: IlpCompositionRepository, service: IlpService, id: string, headerText: string): Promise<IlpCompositionView> {
  const stored = repo.get(id);
  if (stored === null) throw new SilasError(ErrorCode.NotFound, `no ILP composition ${JSON.stringify(id)} is stored`);
  if (!stored.trusted) throw new SilasError(ErrorCode.Conflict, `composition ${id} was changed outside Silas; it cannot be replayed`);
  const header = checkConstitutionalHeader(JSON.parse(headerText));
  if (!header.ok) throw new SilasError(ErrorCode.InvalidArgs, `constitutional_header: ${header.field}: ${header.message}`);
  const root = stored.hop_list[0];
  const request: IlpRequest = requestMessage('THINK', '/insight', header.header, { query: stored.query });
  const sent = throughCodec(request);
  if (!sent.ok) throw new SilasError(ErrorCode.InvalidArgs, `constitutional_header: ${sent.error}`);
  const { composition } = await service.handle({ agent: root?.agent ?? 'meta-agent', request: sent.message, requestText: sent.text, signal: new AbortController().signal, replayOf: id });
  const view = composition ? repo.get(composition.id) : null;
  if (view === null) throw new SilasError(ErrorCode.Internal, 'the replay was not stored');
  return view;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
