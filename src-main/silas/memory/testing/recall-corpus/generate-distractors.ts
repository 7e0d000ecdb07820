import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RecallMemory } from './corpus.js';
import { DISTRACTOR_FAMILIES, type Family, type Pick } from './distractor-families.js';

/*
 * Writes `distractors.json`: memories no query of the corpus asks for, in the same voice and
 * about the same people, tools and places as the hand-written memories, so that keyword and
 * semantic recall both have real competition (a meeting with Tomás about something else, another
 * Postgres note, another train trip). Deterministic: a fixed seed, so the committed file is
 * exactly what this produces, which `corpus.test.ts` checks. After changing a family, run
 *   npx tsx src-main/silas/memory/testing/recall-corpus/generate-distractors.ts
 * and commit the file it writes.
 */

/** Ids up to m300 are kept for hand-written memories (hand-written.json), so adding one moves no distractor. */
const FIRST_ID = 301;
const SEED = 0x5eed_2026;
// Created on a day between these, like the hand-written memories (the corpus's reference time is after both),
// during waking hours.
const FROM_DAY = Date.UTC(2024, 0, 15);
const DAYS = (Date.UTC(2026, 2, 5) - FROM_DAY) / 86_400_000;
const FIRST_MINUTE = 7 * 60;
const MINUTES = 15 * 60;

/** mulberry32: small, fast and the same on every platform. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function picker(random: () => number): Pick {
  return <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
}

/** A family's memories, drawn until it has `count`: no two alike but for their dates. */
function draw(family: Family, random: () => number, taken: Set<string>): Array<Omit<RecallMemory, 'id'>> {
  const pick = picker(random);
  const drawn: Array<Omit<RecallMemory, 'id'>> = [];
  for (let attempt = 0; drawn.length < family.count && attempt < family.count * 50; attempt += 1) {
    const at = new Date(FROM_DAY + Math.floor(random() * DAYS) * 86_400_000 + (FIRST_MINUTE + Math.floor(random() * MINUTES)) * 60_000);
    const { content, tags } = family.make(pick, at.toISOString().slice(0, 10));
    const key = content.replace(/\d{4}-\d{2}-\d{2}/g, '');
    if (taken.has(key)) continue;
    taken.add(key);
    drawn.push({ content, memory_type: family.memoryType, ...(tags ? { semantic_tags: tags } : {}), created_at: at.toISOString() });
  }
  if (drawn.length < family.count) throw new Error(`distractor family "${family.name}" made only ${drawn.length} of ${family.count} distinct memories; add slot values or lower its count`);
  return drawn;
}

/** Every distractor, families interleaved by creation time so no block of ids is one kind. */
export function generateDistractors(): RecallMemory[] {
  const random = randomFrom(SEED);
  const taken = new Set<string>();
  const all = DISTRACTOR_FAMILIES.flatMap((family) => draw(family, random, taken));
  all.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.content.localeCompare(b.content));
  return all.map((memory, index) => ({ id: `m${String(FIRST_ID + index).padStart(3, '0')}`, ...memory }));
}

/** The file as committed: one memory per line, so a diff shows which memories changed. */
export function distractorsFileText(memories: readonly RecallMemory[]): string {
  const lines = memories.map((memory) => `    ${JSON.stringify(memory)}`);
  return `{\n  "generated_by": "generate-distractors.ts",\n  "memories": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = fileURLToPath(new URL('./distractors.json', import.meta.url));
  const memories = generateDistractors();
  writeFileSync(file, distractorsFileText(memories));
  process.stdout.write(`wrote ${memories.length} distractors to ${file}\n`);
}
