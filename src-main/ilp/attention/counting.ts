/*
 * Counting what recurs: the statistics of the attention tracker and of episodic memory (spec 004
 * §4.3 "Pattern Discovery": combinations of concepts that recur) are tallies of names and of
 * pairs of names. Ties are broken by the names (code point order), so a report does not depend
 * on the order rows were stored or read in.
 */

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Each distinct name with how many times it was counted, most first. */
export function tally(names: Iterable<string>): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || byName(a.name, b.name));
}

/**
 * Each pair of distinct names that occur together in a group, with how many groups hold it, most
 * first. A pair is written sorted (`["budget", "homeostasis"]`), so it is the same pair whichever
 * order a group lists its names in; a name listed twice in one group counts once.
 */
export function pairTally(groups: Iterable<readonly string[]>): { pair: [string, string]; count: number }[] {
  const counts = new Map<string, { pair: [string, string]; count: number }>();
  for (const group of groups) {
    const names = [...new Set(group)].sort();
    for (let i = 0; i < names.length; i += 1) {
      for (let j = i + 1; j < names.length; j += 1) {
        const key = `${names[i]!}\n${names[j]!}`;
        const entry = counts.get(key) ?? { pair: [names[i]!, names[j]!], count: 0 };
        entry.count += 1;
        counts.set(key, entry);
      }
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || byName(a.pair[0], b.pair[0]) || byName(a.pair[1], b.pair[1]));
}
