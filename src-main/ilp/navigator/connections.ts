/*
 * The links between slices (`metadata.connects_to`, domain → slice id): how a specialist in one
 * domain reaches the knowledge of another for a cross-domain composition (spec 004 §13.2). Links
 * are directed as written; a link to a slice that is not loaded leads nowhere.
 */

/** Looks up a loaded slice's links and concepts; undefined for an id that is not loaded. */
export type SliceLinks = (id: string) => { links: readonly string[]; concepts: readonly string[] } | undefined;

export interface SliceConnection {
  /** From the first slice to the second, both included: the fewest links. */
  path: string[];
  /** Concepts both ends name (case-blind), in the order the first slice lists them. */
  shared_concepts: string[];
}

/** The shortest chain of links from `from` to `to` (breadth first, links in their written order), or null. */
export function findConnection(from: string, to: string, lookup: SliceLinks): SliceConnection | null {
  const start = lookup(from);
  const end = lookup(to);
  if (!start || !end) return null;
  const previous = new Map<string, string | null>([[from, null]]);
  let frontier = [from];
  while (frontier.length > 0 && !previous.has(to)) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const link of lookup(id)?.links ?? []) {
        if (previous.has(link) || !lookup(link)) continue;
        previous.set(link, id);
        next.push(link);
      }
    }
    frontier = next;
  }
  if (!previous.has(to)) return null;
  const path: string[] = [];
  for (let at: string | null = to; at !== null; at = previous.get(at) ?? null) path.unshift(at);
  const theirs = new Set(end.concepts.map((c) => c.toLowerCase()));
  return { path, shared_concepts: start.concepts.filter((c) => theirs.has(c.toLowerCase())) };
}

/**
 * The slice's neighbourhood as an adjacency list: its own links to loaded slices, and for each of
 * those whether it links back (`[id]`) or not (`[]`).
 */
export function neighbourhood(id: string, lookup: SliceLinks): { related: string[]; graph: Record<string, string[]> } {
  const related = [...new Set(lookup(id)?.links ?? [])].filter((link) => link !== id && lookup(link) !== undefined);
  // A slice without links has no neighbourhood: an empty graph, not a lone node.
  const graph: Record<string, string[]> = related.length > 0 ? { [id]: related } : {};
  for (const link of related) graph[link] = lookup(link)!.links.includes(id) ? [id] : [];
  return { related, graph };
}
