import { z } from 'zod';
import { parseOrThrow } from '../attention/trace-input.js';

/*
 * What episodic memory accepts for one answered query (spec 004 §4.3 "Each episode captures:
 * query, response, concepts, domains, success, confidence"; §7.2 for cost and confidence). Each
 * refusal names the field and what to give instead (docs/architecture.md §8). Lists are bounded
 * and names deduplicated, so one episode cannot blow up the indexes.
 */

const MAX_QUERY_CHARS = 8 * 1024;
const MAX_RESPONSE_CHARS = 1024 * 1024;

const names = (field: string, max: number, what: string) =>
  z
    .array(z.string({ error: `${field} holds something other than text: list ${what} by name` }).min(1, `${field} holds an empty name: list ${what} by name`).max(200, `${field} holds a name longer than 200 characters`), {
      error: `${field} must be a list of names: ${what}`,
    })
    .max(max, `${field} lists more than ${max}: keep ${what} that mattered`)
    .transform((list) => [...new Set(list)])
    .default([]);

const EpisodeInputSchema = z
  .object({
    query: z
      .string({ error: 'query must be the text asked' })
      .max(MAX_QUERY_CHARS, `query is longer than ${MAX_QUERY_CHARS} characters: episodes keep questions, not documents`)
      .refine((query) => query.trim().length > 0, 'query is empty: give the text asked'),
    response: z.string({ error: 'response must be the answer given, as text' }).max(MAX_RESPONSE_CHARS, `response is longer than ${MAX_RESPONSE_CHARS} characters`),
    concepts: names('concepts', 32, 'the concepts'),
    domains: names('domains', 16, 'the domains'),
    agents_used: names('agents_used', 32, 'the agents'),
    cost_usd: z.number({ error: 'cost_usd must be the answer\'s cost in US dollars, a number (§9.1 item 7)' }).nonnegative('cost_usd is negative: give the cost in US dollars, 0 or more'),
    success: z.boolean({ error: 'success must be true or false: whether the answer did what was asked' }),
    confidence: z.number({ error: 'confidence must be a number from 0 to 1 (§9.1 item 5)' }).min(0, 'confidence is below 0: give a number from 0 to 1 (§9.1 item 5)').max(1, 'confidence is above 1: give a number from 0 to 1 (§9.1 item 5)'),
  })
  .strict();

export type EpisodeInput = z.input<typeof EpisodeInputSchema>;
type ParsedEpisode = z.output<typeof EpisodeInputSchema>;

export function parseEpisodeInput(value: unknown): ParsedEpisode {
  return parseOrThrow(EpisodeInputSchema, value);
}
