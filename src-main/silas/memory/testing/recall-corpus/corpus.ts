import { z } from 'zod';
import distractorsFile from './distractors.json' with { type: 'json' };
import queriesFile from './queries.json' with { type: 'json' };
import handWrittenFile from './hand-written.json' with { type: 'json' };

/*
 * The labelled recall corpus (README.md beside this file): memories of one person as Silas keeps
 * them (spec 002 §3.8 MemoryItem, the fields retrieval reads) and queries labelled with the
 * memories that answer them, to measure recall@k of keyword, semantic and merged retrieval
 * (§6.1–§6.3). `hand-written.json` holds the targets the queries ask about and near misses
 * written against particular queries; `distractors.json` is written by `generate-distractors.ts`
 * and competes with the targets for the same words.
 */

export const QUERY_KINDS = ['keyword', 'mixed', 'paraphrase'] as const;
/**
 * `keyword`: shares the target's distinctive words. `mixed`: shares some. `paraphrase`: shares no
 * content word, not even a stem (`content-words.ts`), so only meaning can find the target.
 */
export type QueryKind = (typeof QUERY_KINDS)[number];

const MEMORY_TYPES = ['fact', 'episode', 'preference', 'skill_note', 'decision', 'foresight', 'profile'] as const;
const MemoryId = z.string().regex(/^m\d{3,}$/, { error: 'a corpus memory id is m followed by digits, such as m012' });
const QueryId = z.string().regex(/^q\d{3,}$/, { error: 'a corpus query id is q followed by digits, such as q007' });
const Instant = z.iso.datetime({ error: 'expected an ISO-8601 UTC time such as 2025-06-12T15:30:00.000Z' });

export const RecallMemory = z.strictObject({
  id: MemoryId,
  content: z.string().min(1, { error: 'a memory needs content' }),
  memory_type: z.enum(MEMORY_TYPES),
  semantic_tags: z.array(z.string().min(1)).optional(),
  created_at: Instant,
});
export type RecallMemory = z.infer<typeof RecallMemory>;

export const RecallQuery = z.strictObject({
  id: QueryId,
  text: z.string().min(1, { error: 'a query needs text' }),
  relevant: z.array(MemoryId).min(1, { error: 'a query names 1 to 3 relevant memories' }).max(3, { error: 'a query names 1 to 3 relevant memories' }),
  kind: z.enum(QUERY_KINDS),
});
export type RecallQuery = z.infer<typeof RecallQuery>;

export interface RecallCorpus {
  /** The moment the corpus speaks from: every memory is older, and "last week" means before it. */
  referenceTime: string;
  /** The hand-written memories, then the generated distractors; store them by `created_at`. */
  memories: RecallMemory[];
  queries: RecallQuery[];
}

const HandWrittenFile = z.object({ reference_time: Instant, memories: z.array(RecallMemory) });
const DistractorsFile = z.object({ memories: z.array(RecallMemory) });
const QueriesFile = z.object({ queries: z.array(RecallQuery) });

function parse<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new Error(`${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}; fix that entry of the file`);
}

/** The corpus as committed, checked against the types above (`corpus.test.ts` checks the rest). */
export function loadRecallCorpus(): RecallCorpus {
  const handWritten = parse(HandWrittenFile, handWrittenFile, 'hand-written.json');
  const distractors = parse(DistractorsFile, distractorsFile, 'distractors.json');
  const { queries } = parse(QueriesFile, queriesFile, 'queries.json');
  return { referenceTime: handWritten.reference_time, memories: [...handWritten.memories, ...distractors.memories], queries };
}
