import type { AlignmentSeries } from '../../src-shared/schemas/alignment.js';

/*
 * An agent's AP-Traces as the columns `alignment.series` returns (one array per figure), and the
 * one operation the live page needs on them: appending what was recorded since. No per-trace
 * objects are ever built, so 100,000 traces stay a handful of arrays.
 */

export type SeriesColumns = AlignmentSeries;

/** The newest trace held (the `afterSeq` of the next refresh), 0 when none is. */
export function lastSeq(series: SeriesColumns | null): number {
  return series?.seq.at(-1) ?? 0;
}

/** The per-trace columns, in the contract's order; `valueUsage` and `driftThreshold` are not per trace. */
const COLUMNS = ['seq', 'time', 'similarity', 'driftSimilarity', 'escalated', 'verified', 'alert', 'traceIds', 'actions'] as const;

/**
 * `more` (traces recorded after what `held` ends with) appended to `held`. Traces `held` already
 * has (an answer to an older `afterSeq`) are skipped, so a late or repeated answer cannot count a
 * trace twice; value usage is summed over the traces actually appended.
 */
export function appendSeries(held: SeriesColumns | null, more: SeriesColumns): SeriesColumns {
  if (held === null || held.agentId !== more.agentId) return more;
  const after = lastSeq(held);
  let from = 0;
  while (from < more.seq.length && more.seq[from]! <= after) from += 1;
  if (from === more.seq.length) return held.driftThreshold === more.driftThreshold ? held : { ...held, driftThreshold: more.driftThreshold };
  // Value usage comes summed over the whole answer: only an answer that starts after what is held
  // can be added (the wiring lets only the newest request land, so an overlap is a rare race).
  const valueUsage = from === 0 ? sumUsage(held.valueUsage, more.valueUsage) : held.valueUsage;
  const out = { ...held, valueUsage, driftThreshold: more.driftThreshold } as SeriesColumns;
  for (const column of COLUMNS) {
    const tail = from === 0 ? more[column] : more[column].slice(from);
    (out as unknown as Record<string, unknown[]>)[column] = (held[column] as unknown[]).concat(tail);
  }
  return out;
}

function sumUsage(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [value, count] of Object.entries(b)) out[value] = (out[value] ?? 0) + count;
  return out;
}

/** The number of traces held. */
export const traceCount = (series: SeriesColumns | null): number => series?.seq.length ?? 0;
