import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { IlpSliceVersionRepository, type NewSliceVersion, type SliceVersion, type SliceVersionSealer } from '../../store/repositories/ilp-slice-versions.js';
import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';

/*
 * The slice registry's lifecycle (spec 004 §4.3 "Slice Evolution Engine": propose, deploy,
 * history, rollback; "Automatic Backups"): each change is one `BEGIN IMMEDIATE` transaction over
 * the sealed versions (store/repositories/ilp-slice-versions.ts), with the caller's effect — the
 * navigator told, the ledger entry appended — run inside it, so a refusal of either undoes the
 * change. Only trusted versions are ever deployed, superseded into backups or restored; a version
 * whose seal fails is never acted on (docs/architecture.md §2 "Sealed state").
 */

/** What a change hands to the caller's effect, inside the transaction. */
export interface Transition {
  /** The version now deployed (a `removed` one when the slice was taken out). */
  deployed: SliceVersion;
  /** The trusted version it replaced, kept as the backup; null when none was deployed. */
  superseded: SliceVersion | null;
}

export type Proposal = Omit<NewSliceVersion, 'status' | 'decided_at' | 'created_at' | 'id'>;

export class SliceRegistry {
  readonly repo: IlpSliceVersionRepository;

  constructor(
    private readonly db: SqliteDatabase,
    sealer: SliceVersionSealer,
    private readonly now: () => Date,
    private readonly newId: () => string,
  ) {
    this.repo = new IlpSliceVersionRepository(db, sealer);
  }

  /** Stores a proposal as the version it was written as; refused when that number was taken meanwhile or one is already waiting. */
  propose(proposal: Proposal, effect: (version: SliceVersion) => void): SliceVersion {
    return inImmediateTransaction(this.db, () => {
      if (this.repo.nextVersion(proposal.slice_id) !== proposal.version) throw conflict(`slice ${proposal.slice_id} gained a version while this one was written; distil again`);
      if (this.waiting(proposal.slice_id).length > 0) throw conflict(`a proposal for slice ${proposal.slice_id} is already waiting for the owner's decision`);
      const stored = this.repo.insert({ ...proposal, id: this.newId(), status: 'proposed', created_at: this.now().toISOString(), decided_at: null });
      effect(stored);
      return stored;
    });
  }

  /** Trusted proposals of one slice still waiting. */
  waiting(sliceId: string): SliceVersion[] {
    return this.repo.ofSliceWithStatus(sliceId, 'proposed').filter((v) => v.trusted);
  }

  /** The trusted deployed version of a slice, or null. */
  current(sliceId: string): SliceVersion | null {
    return this.repo.ofSliceWithStatus(sliceId, 'deployed').find((v) => v.trusted) ?? null;
  }

  /** The proposal becomes the deployed version; the one before is superseded and kept. */
  deploy(candidateId: string, effect: (transition: Transition) => void): Transition {
    return inImmediateTransaction(this.db, () => {
      const candidate = this.trustedVersion(candidateId);
      if (candidate.status !== 'proposed') throw conflict(`slice version ${candidateId} (${candidate.slice_id} version ${candidate.version}) is ${candidate.status}, not waiting for a decision`);
      const superseded = this.takeOutDeployed(candidate.slice_id);
      const deployed = this.repo.setStatus(candidate.id, 'deployed', this.now().toISOString());
      const transition = { deployed, superseded };
      effect(transition);
      return transition;
    });
  }

  decline(candidateId: string, reason: string | null, effect: (version: SliceVersion) => void): SliceVersion {
    return inImmediateTransaction(this.db, () => {
      const candidate = this.trustedVersion(candidateId);
      if (candidate.status !== 'proposed') throw conflict(`slice version ${candidateId} (${candidate.slice_id} version ${candidate.version}) is ${candidate.status}, not waiting for a decision`);
      const declined = this.repo.setStatus(candidate.id, 'declined', this.now().toISOString(), reason === null ? candidate.reasons : [...candidate.reasons, `declined: ${reason}`]);
      effect(declined);
      return declined;
    });
  }

  /**
   * A new version restoring `toVersion`'s text, or the newest trusted backup older than the
   * version in force whose text differs from it; with no such backup the slice is removed (a
   * `removed` version). Only a version that was deployed before (`superseded`) may be restored:
   * a declined or never decided proposal does not reach the navigator by way of a rollback.
   */
  rollback(sliceId: string, toVersion: number | undefined, effect: (transition: Transition, restored: SliceVersion | null) => void): { transition: Transition; restored: SliceVersion | null } {
    return inImmediateTransaction(this.db, () => {
      const history = this.repo.history(sliceId);
      const inForce = history.find((v) => v.status === 'deployed' && v.trusted) ?? null;
      if (history.length === 0) throw new SilasError(ErrorCode.NotFound, `no slice ${sliceId} in the registry; \`history\` lists the learned slices' versions`);
      const backups = history.filter((v) => v.trusted && v.status === 'superseded' && v.kind !== 'removed');
      let restored: SliceVersion | null;
      if (toVersion !== undefined) {
        restored = backups.find((v) => v.version === toVersion) ?? null;
        if (restored === null) throw new SilasError(ErrorCode.InvalidArgs, `slice ${sliceId} has no trusted earlier deployed version ${toVersion}; roll back to one history lists as superseded and trusted`);
      } else {
        if (inForce === null && !history.some((v) => v.status === 'deployed')) throw new SilasError(ErrorCode.NotFound, `slice ${sliceId} has no deployed version to roll back`);
        const below = inForce?.version ?? Number.POSITIVE_INFINITY;
        restored = backups.find((v) => v.version < below && v.sha256 !== inForce?.sha256) ?? null;
      }
      const superseded = this.takeOutDeployed(sliceId);
      const stamp = this.now().toISOString();
      const base = { id: this.newId(), slice_id: sliceId, version: this.repo.nextVersion(sliceId), status: 'deployed' as const, created_at: stamp, decided_at: stamp };
      const deployed = restored
        ? this.repo.insert({ ...base, text: restored.text, kind: 'rollback', concepts: restored.concepts, pattern_json: restored.pattern_json, confidence: restored.confidence, constitutional_score: restored.constitutional_score, rationale: restored.rationale, reasons: [`rolled back to version ${restored.version}`] })
        : this.repo.insert({ ...base, text: '', kind: 'removed', concepts: [], pattern_json: 'null', confidence: 0, constitutional_score: 0, rationale: '', reasons: ['rolled back with no earlier trusted version: the slice is removed'] });
      const transition = { deployed, superseded };
      effect(transition, restored);
      return { transition, restored };
    });
  }

  /**
   * Every deployed version of a slice leaves `deployed` (one at most is, but the index may have
   * been dropped): a trusted one becomes the backup, sealed again; one whose seal fails is moved
   * aside unsealed, so it stays untrusted and never blocks a trusted version.
   */
  private takeOutDeployed(sliceId: string): SliceVersion | null {
    let backup: SliceVersion | null = null;
    for (const version of this.repo.ofSliceWithStatus(sliceId, 'deployed')) {
      if (!version.trusted) {
        this.repo.demoteUntrusted(version.id);
        continue;
      }
      const kept = this.repo.setStatus(version.id, 'superseded', version.decided_at);
      backup ??= kept;
    }
    return backup;
  }

  private trustedVersion(id: string): SliceVersion {
    const version = this.repo.byId(id);
    if (version === null) throw new SilasError(ErrorCode.NotFound, `no slice version ${id}; \`proposed\` lists those waiting for a decision`);
    if (!version.trusted) throw new SilasError(ErrorCode.Corrupt, `slice version ${id} (${version.slice_id} version ${version.version}) was changed outside Silas — not trusted; it is never deployed`);
    return version;
  }
}

const conflict = (message: string) => new SilasError(ErrorCode.Conflict, message);
