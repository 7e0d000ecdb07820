import { join } from 'node:path';
import { openDatabase } from '../../../store/database.js';
import { memorySeals } from '../../../testing/seals.js';
import { episodeSealer } from '../episode-seals.js';
import { EpisodicMemory, type EpisodicMemoryOptions } from '../episodic-memory.js';
import type { EpisodeInput } from '../episode-input.js';

/** 2026-03-01T00:00:00Z: the tests' clock starts here and moves only when a test moves it. */
export const T0 = Date.UTC(2026, 2, 1);
export const DAY = 24 * 60 * 60 * 1000;

/**
 * Episodic memory on a real SQLite file in `dir`, sealed with in-memory keys (no keyring), on a
 * clock the test moves (`clock.now`). Refusals reported by the seals are kept in `refusals`.
 */
export function openEpisodicMemory(dir: string, options: Omit<EpisodicMemoryOptions, 'now'> = {}) {
  const { db } = openDatabase(join(dir, 'silas.db'), { create: true });
  const { seals, refusals } = memorySeals();
  const clock = { now: T0 };
  const memory = new EpisodicMemory(db, episodeSealer(seals), { ...options, now: () => clock.now });
  return { db, memory, refusals, clock, seals };
}

/** A successful, confident episode unless the test says otherwise. */
export function episode(query: string, overrides: Partial<EpisodeInput> = {}): EpisodeInput {
  return { query, response: `answer to ${query}`, concepts: [], domains: [], agents_used: [], cost_usd: 0.01, success: true, confidence: 0.9, ...overrides };
}
