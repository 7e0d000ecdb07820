import type { SliceVersion, SliceVersionKind, SliceVersionStatus } from '../../store/repositories/ilp-slice-versions.js';
import { parseSlice } from '../navigator/slice-file.js';
import type { DiscoveredPattern } from './patterns.js';

/*
 * What the slice registry shows of its versions (spec 004 §4.3 "Evolution history tracking";
 * docs/ilp.md "Knowledge distillation"): a proposal as the owner decides on it, a slice's history
 * with each version marked trusted or not, and the label a registry slice carries in the
 * navigator in place of a file name.
 */

/** A proposal (or a decided one) as review shows it. */
export interface Candidate {
  /** The version's id: what `deploy` and `decline` take. */
  id: string;
  slice_id: string;
  version: number;
  kind: 'created' | 'updated';
  status: SliceVersionStatus;
  title: string;
  domain: string;
  /** Concept keys. */
  concepts: string[];
  knowledge: string;
  rationale: string;
  /** The slice file's text, as it would be deployed. */
  text: string;
  sha256: string;
  confidence: number;
  constitutional_score: number;
  /** The enforcer's warnings at validation, and a decline's reason. */
  reasons: string[];
  pattern: DiscoveredPattern | null;
  created_at: string;
  decided_at: string | null;
}

export interface SliceVersionView {
  id: string;
  slice_id: string;
  version: number;
  kind: SliceVersionKind;
  status: SliceVersionStatus;
  title: string;
  text: string;
  sha256: string;
  confidence: number;
  constitutional_score: number;
  rationale: string;
  reasons: string[];
  pattern: DiscoveredPattern | null;
  created_at: string;
  decided_at: string | null;
  /** False: changed outside Silas; never deployed or restored (docs/architecture.md §2 "Sealed state"). */
  trusted: boolean;
}

export interface UntrustedVersion {
  id: string;
  slice_id: string;
  version: number;
  status: SliceVersionStatus;
}

/** The name a registry slice goes by in the navigator, where a file's slice shows its path. */
export function labelOf(sliceId: string, version: number): string {
  return `slice-registry:${sliceId}@v${version}`;
}

/** The pattern a version was learned from, or null when it holds none (a removal) or not one of ours. */
export function patternOf(version: Pick<SliceVersion, 'pattern_json'>): DiscoveredPattern | null {
  try {
    const value = JSON.parse(version.pattern_json) as Partial<DiscoveredPattern> | null;
    const ok = value !== null && typeof value === 'object' && typeof value.key === 'string' && Array.isArray(value.concepts) && typeof value.frequency === 'number' && Array.isArray(value.episode_ids);
    return ok ? (value as DiscoveredPattern) : null;
  } catch {
    return null;
  }
}

/** Domain, title and knowledge of a slice text, or null when it is not one (a removal's empty text). */
export function parseSliceText(text: string): { domain: string; title: string; knowledge: string } | null {
  if (text === '') return null;
  const parsed = parseSlice(text, 'slice-registry');
  return parsed.ok ? { domain: parsed.slice.metadata.domain, title: parsed.slice.metadata.title, knowledge: parsed.slice.knowledge } : null;
}

export function candidateOf(v: SliceVersion): Candidate {
  const slice = parseSliceText(v.text);
  return {
    id: v.id,
    slice_id: v.slice_id,
    version: v.version,
    kind: v.kind === 'updated' ? 'updated' : 'created',
    status: v.status,
    title: slice?.title ?? '',
    domain: slice?.domain ?? '',
    concepts: v.concepts,
    knowledge: slice?.knowledge ?? '',
    rationale: v.rationale,
    text: v.text,
    sha256: v.sha256,
    confidence: v.confidence,
    constitutional_score: v.constitutional_score,
    reasons: v.reasons,
    pattern: patternOf(v),
    created_at: v.created_at,
    decided_at: v.decided_at,
  };
}

export function historyOf(v: SliceVersion): SliceVersionView {
  return {
    id: v.id,
    slice_id: v.slice_id,
    version: v.version,
    kind: v.kind,
    status: v.status,
    title: parseSliceText(v.text)?.title ?? '',
    text: v.text,
    sha256: v.sha256,
    confidence: v.confidence,
    constitutional_score: v.constitutional_score,
    rationale: v.rationale,
    reasons: v.reasons,
    pattern: patternOf(v),
    created_at: v.created_at,
    decided_at: v.decided_at,
    trusted: v.trusted,
  };
}

export function sliceOf(v: SliceVersion): { slice_id: string; version: number; text: string; label: string } {
  return { slice_id: v.slice_id, version: v.version, text: v.text, label: labelOf(v.slice_id, v.version) };
}
