import type { IlpEpisode } from '../../store/repositories/ilp-episodes.js';
import { invalid } from '../attention/trace-input.js';

/*
 * How long an episode counts and when it may answer for a new query (spec 004 §9.2 item 3;
 * docs/ilp.md "Attention and episodic memory"; the decisions are in docs/conformance.md "ILP
 * episodic memory").
 *
 * - Decay: an episode's weight is 2^(−age / half-life), its age counted from when the query was
 *   last answered. Half-life 30 days unless configured.
 * - Expiry: below `floor` (default 0.25, so two half-lives: 60 days) an episode has expired. The
 *   cache never serves it, and `consolidate()` deletes it.
 * - Similar: Jaccard ≥ `similarity` (default 0.8) over the two queries' words, or the same hash.
 */

export interface MemorySettingsInput {
  /** Default 30. */
  halfLifeDays?: number;
  /** Default 0.25. */
  floor?: number;
  /** Default 0.8. */
  similarity?: number;
}

export interface MemorySettings {
  halfLifeMs: number;
  floor: number;
  similarity: number;
  /** Age at which the weight falls below the floor. */
  lifetimeMs: number;
}

const DEFAULT_HALF_LIFE_DAYS = 30;
const DEFAULT_FLOOR = 0.25;
const DEFAULT_SIMILARITY = 0.8;
/** §6.1: a Constitutional-Header's confidence_threshold when it gives none. */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.7;
const DAY_MS = 24 * 60 * 60 * 1000;

export function memorySettings(input: MemorySettingsInput = {}): MemorySettings {
  const halfLifeDays = input.halfLifeDays ?? DEFAULT_HALF_LIFE_DAYS;
  const floor = input.floor ?? DEFAULT_FLOOR;
  const similarity = input.similarity ?? DEFAULT_SIMILARITY;
  if (!Number.isFinite(halfLifeDays) || halfLifeDays <= 0 || halfLifeDays > 36_500) throw invalid(`halfLifeDays must be a number of days above 0 and at most 36,500, got ${String(halfLifeDays)}`);
  if (!Number.isFinite(floor) || floor <= 0 || floor >= 1) throw invalid(`floor must be a weight above 0 and below 1 (an episode below it has expired), got ${String(floor)}`);
  if (!Number.isFinite(similarity) || similarity <= 0 || similarity > 1) throw invalid(`similarity must be a Jaccard index above 0 and at most 1, got ${String(similarity)}`);
  const halfLifeMs = halfLifeDays * DAY_MS;
  return { halfLifeMs, floor, similarity, lifetimeMs: Math.ceil(halfLifeMs * Math.log2(1 / floor)) };
}

/** 2^(−age / half-life); an episode from the future (a clock stepped back) weighs 1. */
export function decayWeight(timestamp: number, now: number, settings: MemorySettings): number {
  return 2 ** (-Math.max(0, now - timestamp) / settings.halfLifeMs);
}

export function isExpired(episode: IlpEpisode, now: number, settings: MemorySettings): boolean {
  return decayWeight(episode.timestamp, now, settings) < settings.floor;
}

/**
 * §9.2 item 3's cache rule for one episode already found identical or similar: it may answer only
 * if it succeeded, both its averaged confidence and its stored response's own reach the threshold,
 * and it has not expired. (Whether its seal holds is the caller's first question.)
 */
export function answersFromCache(episode: IlpEpisode, now: number, settings: MemorySettings, confidenceThreshold: number): boolean {
  return episode.success && Math.min(episode.confidence, episode.response_confidence) >= confidenceThreshold && !isExpired(episode, now, settings);
}

export function checkThreshold(value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw invalid(`confidence_threshold must be a number from 0 to 1 (§6.1), got ${String(value)}`);
  return value;
}
