import { randomUUID } from 'node:crypto';
import type { AuditAppender } from '../../../src-shared/audit/events.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { isModelError } from '../../llm/errors.js';
import type { IlpEpisode } from '../../store/repositories/ilp-episodes.js';
import type { SliceVersion, SliceVersionSealer } from '../../store/repositories/ilp-slice-versions.js';
import type { SqliteDatabase } from '../../store/transaction.js';
import type { ModelSource } from '../agents/agent.js';
import type { AnswerScreen } from '../composition/hop.js';
import type { EnforcerOptions } from '../constitution/enforce.js';
import type { DeployResult } from '../navigator/navigator.js';
import { generateCandidate, type CandidateTarget } from './candidate.js';
import { DEFAULT_MIN_FREQUENCY, discoverPatterns, MAX_EPISODES, type DiscoveredPattern } from './patterns.js';
import { SliceRegistry, type Transition } from './registry.js';
import { learnedDomain, learnedSliceId } from './slice-text.js';
import { validateCandidate } from './validate.js';
import { candidateOf, historyOf, labelOf, parseSliceText, patternOf, sliceOf, type Candidate, type SliceVersionView, type UntrustedVersion } from './views.js';

/*
 * Knowledge distillation (spec 004 §4.3, §9.3 item 6, Appendix B Level 3; docs/ilp.md "Knowledge
 * distillation"): patterns found in trusted episodes, a slice proposed for each by a model and
 * validated, then — only when the owner decides — deployed into the navigator at once, with every
 * earlier version kept for rollback. The RFC lets a loop deploy on its own when `should_deploy`
 * holds ("Approval Gates"); here `should_deploy` only makes a proposal, and deploying is the
 * owner's decision, which review asks for: a slice becomes knowledge every agent trusts.
 *
 * The registry (sealed rows, registry.ts) is the only source of learned slices; the navigator
 * indexes their texts (`deployText`), never files of the data home (see ilp/navigator/navigator.ts).
 */

export interface EpisodeSource {
  recentTrusted(limit: number): { episodes: IlpEpisode[]; untrusted: number };
}

/** What the engine needs of the navigator. */
export interface SliceSink {
  deployText(id: string, text: string, label: string): DeployResult;
  remove(id: string): boolean;
  /** Which slice holds an id now (a file's, the shipped ones included, or a registry slice). */
  loadSlice(id: string): { file: string } | null;
}

/**
 * The keyring's anchor of each learned slice's version in force (docs/architecture.md §2 "Sealed
 * state", anchors): a row's seal proves Silas wrote it, not that it is still current, so an older
 * sealed copy put back by a database writer (a version deployed before) would pass its seal. The
 * anchor names the row in force; a slice whose deployed row is not the one anchored is not loaded.
 */
export interface DeployedAnchors {
  anchor(sliceId: string, value: unknown): void;
  /** Whether `value` (null: nothing in force) is what was last anchored for the slice; a refusal is reported. */
  check(sliceId: string, value: unknown): boolean;
}

export interface SliceEvolutionDeps {
  db: SqliteDatabase;
  memory: EpisodeSource;
  /** The model that writes candidates (the planner role's, in the runtime). */
  model: ModelSource;
  /** The role `model` belongs to, named in the error when it is not set up. Default `planner`. */
  modelRole?: string;
  /** The runtime's steering screen (its injection detector on agents' answers). */
  screen: AnswerScreen;
  /** Ledger MAC, kind `ilp-slice-version` (slice-version-seals.ts). */
  sealer: SliceVersionSealer;
  audit: Pick<AuditAppender, 'append'>;
  navigator: SliceSink;
  /** The enforcer's configuration the runtime composes with (custom principles, forbidden translations). */
  enforcer?: EnforcerOptions;
  /** The keyring anchors of the versions in force; without them (tests of the engine alone) only seals are checked. */
  anchors?: DeployedAnchors;
  now?: () => Date;
  newId?: () => string;
}

export interface DistillProgress {
  stage: 'patterns' | 'candidate' | 'done';
  done: number;
  total: number;
  pattern?: string;
}

export interface DistillOptions {
  /** Successful episodes a pattern needs; default 3. */
  minFrequency?: number;
  /** Patterns sent to the model at most; default 5, at most 20. */
  maxCandidates?: number;
  signal?: AbortSignal;
  onProgress?: (progress: DistillProgress) => void;
}

export interface DistillResult {
  patterns: DiscoveredPattern[];
  /** Stored as `proposed`: waiting for the owner's decision. */
  proposed: Candidate[];
  rejected: { pattern: DiscoveredPattern; reasons: string[] }[];
  /** Patterns not sent to the model, with why. */
  skipped: { pattern: DiscoveredPattern; reason: string }[];
  untrusted_episodes: number;
}

export interface DeployedSlices {
  slices: { slice_id: string; version: number; text: string; label: string }[];
  /** Deployed versions whose seal failed: never loaded. */
  untrusted: UntrustedVersion[];
}

const MAX_CANDIDATES = 20;

export class SliceEvolution {
  private readonly registry: SliceRegistry;
  private readonly now: () => Date;
  /** Slices not loaded at start because their row in force is not the one anchored, with why. */
  private readonly notAnchored = new Map<string, string>();

  constructor(private readonly deps: SliceEvolutionDeps) {
    this.now = deps.now ?? (() => new Date());
    this.registry = new SliceRegistry(deps.db, deps.sealer, this.now, deps.newId ?? randomUUID);
  }

  /** Finds patterns, asks the model for a slice per pattern, validates each and stores those that pass as proposals. Deploys nothing. */
  async distill(options: DistillOptions = {}): Promise<DistillResult> {
    const { signal, onProgress } = options;
    const maxCandidates = options.maxCandidates ?? 5;
    if (!Number.isSafeInteger(maxCandidates) || maxCandidates < 0 || maxCandidates > MAX_CANDIDATES) throw new SilasError(ErrorCode.InvalidArgs, `maxCandidates must be a whole number from 0 to ${MAX_CANDIDATES}, got ${String(maxCandidates)}`);
    signal?.throwIfAborted();
    const client = await this.deps.model();
    if ('problem' in client) throw new SilasError(ErrorCode.Config, modelProblem(this.deps.modelRole ?? 'planner', client.problem));

    const read = this.deps.memory.recentTrusted(MAX_EPISODES);
    const patterns = discoverPatterns(read.episodes, { ...(options.minFrequency !== undefined ? { minFrequency: options.minFrequency } : {}) });
    onProgress?.({ stage: 'patterns', done: 0, total: patterns.length });
    const result: DistillResult = { patterns, proposed: [], rejected: [], skipped: [], untrusted_episodes: read.untrusted };
    let asked = 0;
    let cost = 0;
    const learned = this.registry.repo.withStatus('deployed').filter((v) => v.trusted && v.kind !== 'removed');
    for (const pattern of patterns) {
      signal?.throwIfAborted();
      if (asked >= maxCandidates) break;
      const target = this.targetOf(pattern, learned);
      if ('skip' in target) {
        result.skipped.push({ pattern, reason: target.skip });
        continue;
      }
      asked += 1;
      onProgress?.({ stage: 'candidate', done: asked - 1, total: Math.min(maxCandidates, patterns.length), pattern: pattern.key });
      let draft;
      try {
        draft = await generateCandidate(client, pattern, target, signal);
      } catch (error) {
        signal?.throwIfAborted();
        if (!isModelError(error)) throw error;
        result.rejected.push({ pattern, reasons: [`the ${this.deps.modelRole ?? 'planner'} role's model failed: ${error.message}`] });
        continue;
      }
      cost += draft.cost_usd;
      signal?.throwIfAborted();
      const validation = validateCandidate({ slice_id: draft.slice_id, text: draft.text, label: labelOf(draft.slice_id, draft.version), rationale: draft.rationale, confidence: draft.confidence, sources: pattern.episode_ids }, this.deps.screen, this.deps.enforcer);
      if (!validation.should_deploy) {
        result.rejected.push({ pattern, reasons: validation.reasons });
        continue;
      }
      try {
        const stored = this.registry.propose(
          { slice_id: draft.slice_id, version: draft.version, text: draft.text, kind: draft.kind, concepts: draft.concepts, pattern_json: JSON.stringify(pattern), confidence: draft.confidence, constitutional_score: validation.constitutional_score, rationale: draft.rationale, reasons: validation.warnings },
          (v) => this.deps.audit.append('ilp.slice_proposed', { candidate_id: v.id, slice_id: v.slice_id, version: v.version, kind: draft.kind, sha256: v.sha256, concepts: v.concepts, frequency: pattern.frequency, confidence: v.confidence, constitutional_score: v.constitutional_score }),
        );
        result.proposed.push(candidateOf(stored));
      } catch (error) {
        if (!(error instanceof SilasError) || error.code !== ErrorCode.Conflict) throw error;
        result.rejected.push({ pattern, reasons: [error.message] });
      }
    }
    this.deps.audit.append('ilp.distillation', { episodes_read: read.episodes.length, untrusted_episodes: read.untrusted, min_frequency: options.minFrequency ?? DEFAULT_MIN_FREQUENCY, patterns: patterns.length, proposed: result.proposed.length, rejected: result.rejected.length, skipped: result.skipped.length, cost_usd: cost });
    onProgress?.({ stage: 'done', done: asked, total: asked });
    return result;
  }

  /** Trusted proposals waiting for the owner's decision, by slice id. */
  proposed(): Candidate[] {
    return this.registry.repo.withStatus('proposed').filter((v) => v.trusted).map(candidateOf);
  }

  /**
   * Deploys a proposal: validated again (the screen and enforcer may have learned since), the
   * version in force superseded and kept as the backup, and the navigator given the text at once.
   * The navigator refusing it (a file now holds the id) undoes the whole change.
   */
  deploy(candidateId: string): { slice_id: string; version: number; superseded_version: number | null } {
    const stored = this.registry.repo.byId(candidateId);
    if (stored?.trusted && stored.status === 'proposed') {
      const again = validateCandidate({ slice_id: stored.slice_id, text: stored.text, label: labelOf(stored.slice_id, stored.version), rationale: stored.rationale, confidence: stored.confidence, sources: patternOf(stored)?.episode_ids ?? [] }, this.deps.screen, this.deps.enforcer);
      if (!again.should_deploy) throw new SilasError(ErrorCode.InvalidArgs, `slice ${stored.slice_id} version ${stored.version} no longer passes validation: ${again.reasons.join('; ')}; decline it`);
    }
    const { deployed, superseded } = this.withNavigator(stored?.slice_id ?? null, (apply) =>
      this.registry.deploy(candidateId, (t) => {
        apply(t);
        this.deps.audit.append('ilp.slice_deployed', { candidate_id: t.deployed.id, slice_id: t.deployed.slice_id, version: t.deployed.version, kind: t.deployed.kind === 'updated' ? 'updated' : 'created', sha256: t.deployed.sha256, superseded_version: t.superseded?.version ?? null });
      }),
    );
    this.anchorInForce(deployed.slice_id);
    return { slice_id: deployed.slice_id, version: deployed.version, superseded_version: superseded?.version ?? null };
  }

  decline(candidateId: string, reason?: string): Candidate {
    const declined = this.registry.decline(candidateId, reason ?? null, (v) => this.deps.audit.append('ilp.slice_declined', { candidate_id: v.id, slice_id: v.slice_id, version: v.version, sha256: v.sha256, reason: reason ?? null }));
    return candidateOf(declined);
  }

  /** Restores the previous trusted version's text (or `toVersion`'s) as a new version; with none, removes the slice. */
  rollback(sliceId: string, toVersion?: number): { slice_id: string; version: number; kind: 'rollback' | 'removed'; restored_version: number | null } {
    const { transition, restored } = this.withNavigator(sliceId, (apply) =>
      this.registry.rollback(sliceId, toVersion, (t, from) => {
        apply(t);
        const removed = t.deployed.kind === 'removed';
        this.deps.audit.append('ilp.slice_rolled_back', { slice_id: sliceId, version: t.deployed.version, kind: removed ? 'removed' : 'rollback', restored_version: from?.version ?? null, superseded_version: t.superseded?.version ?? null, sha256: removed ? null : t.deployed.sha256 });
      }),
    );
    this.anchorInForce(sliceId);
    return { slice_id: sliceId, version: transition.deployed.version, kind: transition.deployed.kind === 'removed' ? 'removed' : 'rollback', restored_version: restored?.version ?? null };
  }

  /** Every learned slice, the most recently changed first, with its trusted deployed version, its history, and why that version is not used when it is not. */
  learned(limit = 200): { slice_id: string; deployed_version: number | null; history: SliceVersionView[]; problem: string | null }[] {
    return this.registry.repo.sliceIds(limit).map((sliceId) => {
      const history = this.history(sliceId);
      const inForce = history.find((v) => v.status === 'deployed' && v.trusted && v.kind !== 'removed');
      // A version refused at start stays listed (the owner rolls it back or deploys again), with why it is not used.
      return { slice_id: sliceId, deployed_version: inForce?.version ?? null, history, problem: this.problemOf(sliceId) };
    });
  }

  /** A slice's versions, newest first, each marked trusted or not. */
  history(sliceId: string): SliceVersionView[] {
    return this.registry.repo.history(sliceId, 100).map(historyOf);
  }

  /** The trusted deployed texts, for loading into the navigator at start; untrusted deployed versions reported apart. */
  deployed(): DeployedSlices {
    const rows = this.registry.repo.withStatus('deployed');
    return {
      slices: rows.filter((v) => v.trusted && v.kind !== 'removed').map(sliceOf),
      untrusted: rows.filter((v) => !v.trusted).map((v) => ({ id: v.id, slice_id: v.slice_id, version: v.version, status: v.status })),
    };
  }

  /** Proposed and deployed versions whose seal fails: changed outside Silas, never acted on. */
  untrusted(): UntrustedVersion[] {
    return [...this.registry.repo.withStatus('proposed'), ...this.registry.repo.withStatus('deployed')].filter((v) => !v.trusted).map((v) => ({ id: v.id, slice_id: v.slice_id, version: v.version, status: v.status }));
  }

  /**
   * `deployed()` given to the navigator: what the runtime calls once at start. With anchors, a
   * slice whose row in force is not the one the keyring names (an older sealed copy put back, a
   * deployed row removed or planted) is refused and not loaded, until the owner deploys or rolls
   * it back again.
   */
  restoreDeployed(): { loaded: string[]; refused: { slice_id: string; problems: string[] }[]; untrusted: UntrustedVersion[] } {
    const { slices, untrusted } = this.deployed();
    const loaded: string[] = [];
    const refused: { slice_id: string; problems: string[] }[] = [];
    this.notAnchored.clear();
    const anchors = this.deps.anchors;
    if (anchors) {
      for (const sliceId of this.registry.repo.sliceIds()) {
        if (anchors.check(sliceId, this.inForceValue(sliceId))) continue;
        const problem = `the version in force of ${sliceId} is not the one Silas last deployed (changed outside Silas, or an older copy put back); deploy or roll it back again on the ILP page`;
        this.notAnchored.set(sliceId, problem);
        refused.push({ slice_id: sliceId, problems: [problem] });
      }
    }
    for (const slice of slices) {
      if (this.notAnchored.has(slice.slice_id)) continue;
      const result = this.deps.navigator.deployText(slice.slice_id, slice.text, slice.label);
      if (result.ok) loaded.push(slice.slice_id);
      else refused.push({ slice_id: slice.slice_id, problems: result.problems.map((p) => `${p.file}:${p.line}: ${p.message}`) });
    }
    return { loaded, refused, untrusted };
  }

  /** Why a slice was not loaded at start, or null. */
  problemOf(sliceId: string): string | null {
    return this.notAnchored.get(sliceId) ?? null;
  }

  /** What the anchor of a slice names: its trusted row in force (a removal included), or null. */
  private inForceValue(sliceId: string): unknown {
    const row = this.registry.current(sliceId);
    return row === null ? null : { id: row.id, version: row.version, kind: row.kind, sha256: row.sha256 };
  }

  private anchorInForce(sliceId: string): void {
    this.deps.anchors?.anchor(sliceId, this.inForceValue(sliceId));
    this.notAnchored.delete(sliceId);
  }

  /** Where a pattern's slice goes: the next version of a learned slice that covers its concepts, or a new one. */
  private targetOf(pattern: DiscoveredPattern, learned: readonly SliceVersion[]): CandidateTarget | { skip: string } {
    const covering = coveringSlice(pattern, learned);
    if (covering) {
      const previous = patternOf(covering);
      if (previous?.key === pattern.key && previous.frequency >= pattern.frequency) return { skip: `slice ${covering.slice_id} version ${covering.version} already holds this pattern (${previous.frequency} episodes); nothing new since` };
      if (this.registry.waiting(covering.slice_id).length > 0) return { skip: `a proposal for slice ${covering.slice_id} is already waiting for the owner's decision` };
      const refused = this.declinedBefore(covering.slice_id, pattern);
      if (refused) return { skip: refused };
      const current = parseSliceText(covering.text) ?? { domain: learnedDomain(pattern.domains), title: '', knowledge: '' };
      return { slice_id: covering.slice_id, kind: 'updated', domain: current.domain, version: this.registry.repo.nextVersion(covering.slice_id), current: { version: covering.version, title: current.title, knowledge: current.knowledge } };
    }
    const id = learnedSliceId(pattern.concepts);
    const holder = this.deps.navigator.loadSlice(id);
    if (holder && this.registry.current(id) === null) return { skip: `the id ${id} is held by ${holder.file}, a slice the evolution loop did not write; it is never overwritten` };
    if (this.registry.waiting(id).length > 0) return { skip: `a proposal for slice ${id} is already waiting for the owner's decision` };
    const refused = this.declinedBefore(id, pattern);
    if (refused) return { skip: refused };
    return { slice_id: id, kind: 'created', domain: learnedDomain(pattern.domains), version: this.registry.repo.nextVersion(id) };
  }

  /** The owner's "no" stands until the pattern has grown: the newest version, declined on the same evidence, is not asked about again. */
  private declinedBefore(sliceId: string, pattern: DiscoveredPattern): string | null {
    const newest = this.registry.repo.history(sliceId, 1)[0];
    const before = newest?.trusted && newest.status === 'declined' ? patternOf(newest) : null;
    if (!newest || before?.key !== pattern.key || before.frequency < pattern.frequency) return null;
    return `slice ${sliceId} version ${newest.version} was declined on the same evidence (${before.frequency} episodes); nothing new since`;
  }

  /**
   * Runs a registry change whose effect tells the navigator. If the change fails after the
   * navigator was told (the ledger refused the entry, the commit failed), the navigator is put
   * back to the version still in force, so it never shows what the registry does not hold.
   */
  private withNavigator<T>(sliceId: string | null, change: (apply: (t: Transition) => void) => T): T {
    let told = false;
    const apply = (t: Transition) => {
      const { deployed } = t;
      if (deployed.kind === 'removed') this.deps.navigator.remove(deployed.slice_id);
      else {
        const result = this.deps.navigator.deployText(deployed.slice_id, deployed.text, labelOf(deployed.slice_id, deployed.version));
        if (!result.ok) throw new SilasError(ErrorCode.Conflict, `the navigator refused slice ${deployed.slice_id} version ${deployed.version}: ${result.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('; ')}`);
      }
      told = true;
    };
    try {
      return change(apply);
    } catch (error) {
      if (told && sliceId !== null) this.putBack(sliceId);
      throw error;
    }
  }

  private putBack(sliceId: string): void {
    const inForce = this.registry.current(sliceId);
    if (inForce === null || inForce.kind === 'removed') this.deps.navigator.remove(sliceId);
    else this.deps.navigator.deployText(sliceId, inForce.text, labelOf(sliceId, inForce.version));
  }
}

function modelProblem(role: string, problem: string): string {
  const fix = problem.includes('silas models set') ? '' : `; set it up with \`silas models set ${role} --provider … --model …\``;
  return `knowledge distillation writes candidates with the ${role} role's model, which is not set up: ${problem}${fix}`;
}

/** A trusted deployed learned slice whose concepts hold every concept of the pattern; the one learned from this very pattern first. */
function coveringSlice(pattern: DiscoveredPattern, learned: readonly SliceVersion[]): SliceVersion | null {
  const covering = learned.filter((v) => pattern.concepts.every((c) => v.concepts.includes(c)));
  return covering.find((v) => patternOf(v)?.key === pattern.key) ?? covering[0] ?? null;
}
