import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { IlpSliceIndex, type ConceptMatch } from '../../store/repositories/ilp-slice-index.js';
import { findConnection, neighbourhood, type SliceConnection, type SliceLinks } from './connections.js';
import { isSliceId, NAME_RULE, parseSlice, type ParsedSlice, type Slice, type SliceProblem } from './slice-file.js';
import { isInside, isSliceFileName, readSliceFile, readSliceTree, realRoot, type SliceText } from './slice-source.js';

/*
 * The slice navigator (spec 004 §4.2 step 4: an agent retrieves knowledge): every slice file under
 * its folders, checked (slice-file.ts) and indexed (store/repositories/ilp-slice-index.ts), then
 * found by concept, domain, link or id. A file with a problem is reported and left out; the rest
 * are indexed. The index is rebuilt from the files on every load (docs/architecture.md §2 "Sealed
 * state"); `deploy` adds one file at once.
 *
 * Slices the self-evolution loop writes (§4.3 "Evolution Deployment") come as text, not files:
 * `deployText` indexes one at once and `remove` takes it out. Their source is the sealed slice
 * registry (store/repositories/ilp-slice-versions.ts), which hands the navigator its deployed
 * versions at start. They are deliberately not written as files into the data home: a file there
 * would be a second, unsealed source that any process writing the home could edit, and the
 * navigator would read it as knowledge. A registry slice never replaces a file's slice of the same
 * id (the shipped ones included); at a reload the files are read first and win.
 */

export interface SliceHit {
  slice_id: string;
  /** 1 for a concept named exactly, 0.7 for a concept the query names part of or within, 0.4 for words of its title or knowledge only. */
  relevance_score: number;
  /** The slice's concepts that matched, as the slice writes them; [] for a match by title or knowledge. */
  matched_concepts: string[];
}

export interface LoadedSlice {
  slice: Slice;
  file: string;
  /** The loaded slices it links to, each once. */
  related_slices: string[];
  /** Its links, and for each related slice its link back (or none). */
  connection_graph: Record<string, string[]>;
}

export interface NavigatorStats {
  total_slices: number;
  /** Distinct concepts, as matched (case and separators aside). */
  total_concepts: number;
  domains: number;
  /** Files left out, each with its problems in `problems()`. */
  rejected_files: number;
}

export type DeployResult = { ok: true; slice_id: string } | { ok: false; problems: SliceProblem[] };

const EXACT = 1;
const PARTIAL = 0.7;
const TEXT_ONLY = 0.4;
const MAX_LIMIT = 100;
/**
 * Concept rows read per search, at least: a concept thousands of slices name costs no more than a
 * rare one. Equal scores are ranked among these candidates (the first in index order).
 */
const CONCEPT_ROWS = 100;
/** Words of a query tried as a concept it contains ("how does negative feedback work" holds negative_feedback). */
const MAX_RUN_WORDS = 4;

/** The form a concept is matched by: case-blind, any run of separators one `_` ("Negative Feedback" is negative_feedback). */
export function conceptKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * The query's key, then its runs of up to MAX_RUN_WORDS words, longest first: the concepts a longer
 * query may hold whole, the most specific read first.
 */
function wordRuns(key: string): string[] {
  const words = key.split('_').slice(0, 32);
  const runs = new Set<string>([key]);
  for (let length = Math.min(MAX_RUN_WORDS, words.length); length > 0; length -= 1) {
    for (let start = 0; start + length <= words.length; start += 1) runs.add(words.slice(start, start + length).join('_'));
  }
  return [...runs];
}

export class SliceNavigator {
  private readonly given: readonly string[];
  /** The folders as the file system names them, and those that could not be read, as of the last load. */
  private roots: string[] = [];
  private missingRoots: SliceProblem[] = [];
  private index = new IlpSliceIndex();
  private slices = new Map<string, { slice: Slice; file: string }>();
  private fileIds = new Map<string, string>();
  private rejected = new Map<string, SliceProblem[]>();
  /** Slices given as text (`deployText`), by id: indexed again after every reload. */
  private readonly registry = new Map<string, { text: string; label: string }>();

  /** Loads every `*.slice.yaml` and `*.slice.yml` under `roots`, recursively. */
  constructor(roots: readonly string[]) {
    this.given = [...roots];
    this.reload();
  }

  /** Reads every folder again into a new index: what changed, appeared or went away on disk is what counts. */
  reload(): NavigatorStats {
    this.roots = [];
    this.missingRoots = [];
    for (const root of this.given) {
      try {
        this.roots.push(realRoot(root));
      } catch (error) {
        this.missingRoots.push({ file: resolve(root), line: 1, column: 1, field: '(file)', message: `the slice folder cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` });
      }
    }
    this.index.close();
    this.index = new IlpSliceIndex();
    this.slices = new Map();
    this.fileIds = new Map();
    this.rejected = new Map();
    // A folder inside another given folder is read once, in the first order it was given.
    const read = new Set<string>();
    for (const root of this.roots) {
      const { texts, problems } = readSliceTree(root);
      for (const problem of problems) if (!read.has(problem.file)) this.reject(problem.file, [problem]);
      this.index.batch(() => {
        for (const text of texts) if (!read.has(text.file)) this.add(text);
      });
      for (const item of [...texts, ...problems]) read.add(item.file);
    }
    for (const [id, { text, label }] of this.registry) {
      const added = this.addText(id, text, label);
      if (!added.ok) this.reject(label, added.problems);
    }
    return this.getStats();
  }

  /**
   * Indexes a slice given as text at once, under `label` (shown as its file in problems and
   * `loadSlice`): a new registry slice, or a new version of one, which replaces the version held
   * before. Refused, and the version held before kept, when the text is not a slice, its id is not
   * `id`, or a slice file holds that id.
   */
  deployText(id: string, text: string, label: string): DeployResult {
    const added = this.addText(id, text, label);
    if (added.ok) this.registry.set(id, { text, label });
    return added;
  }

  /** Takes a registry slice out of the index at once; false when no registry slice has that id (a file's slice is removed by removing its file). */
  remove(id: string): boolean {
    const held = this.registry.get(id);
    if (held === undefined) return false;
    this.registry.delete(id);
    this.rejected.delete(held.label);
    if (this.fileIds.get(held.label) === id) this.forget(held.label);
    return true;
  }

  private addText(id: string, text: string, label: string): DeployResult {
    const refuse = (message: string, at: { line: number; column: number } = { line: 1, column: 1 }): DeployResult => ({ ok: false, problems: [{ file: label, ...at, field: 'metadata.id', message }] });
    if (!isSliceId(id)) return refuse(`"${id.slice(0, 80)}" is not a slice id: ${NAME_RULE}`);
    const parsed = parseSlice(text, label);
    if (!parsed.ok) return { ok: false, problems: parsed.problems };
    if (parsed.slice.metadata.id !== id) return refuse(`the slice's id is "${parsed.slice.metadata.id}", not "${id}"; a registry slice is deployed under its own id`, parsed.idAt);
    const holder = this.slices.get(id);
    const previous = this.registry.get(id)?.label;
    if (holder && holder.file !== previous && holder.file !== label) return refuse(`"${id}" is already the id of ${holder.file}; a slice from a file is never replaced by a registry slice`, parsed.idAt);
    if (previous !== undefined && previous !== label) {
      this.rejected.delete(previous);
      if (this.fileIds.get(previous) === id) this.forget(previous);
    }
    return this.indexParsed(label, parsed);
  }

  /** Indexes one slice file under a root at once (a new or rewritten slice); its problems otherwise. */
  deploy(sliceFile: string): DeployResult {
    const given = resolve(sliceFile);
    let file = given;
    try {
      // The folder as the file system names it: a linked folder inside a root may lead outside it.
      file = join(realpathSync(dirname(given)), basename(given));
    } catch {
      // Reported below as a file that cannot be read.
    }
    const root = this.roots.find((r) => isInside(r, file));
    const refuse = (message: string): DeployResult => ({ ok: false, problems: this.reject(file, [{ file, line: 1, column: 1, field: '(file)', message }]) });
    if (!root) return refuse(`the file is outside the slice folders (${this.roots.join(', ')}); write it into one of them`);
    if (!isSliceFileName(file)) return refuse('a slice file is named NAME.slice.yaml or NAME.slice.yml');
    const read = readSliceFile(root, file);
    if ('text' in read) return this.add(read);
    // Gone or unreadable now: the slice it held is not offered any longer.
    this.forget(file);
    return { ok: false, problems: this.reject(file, [read]) };
  }

  private reject(file: string, problems: SliceProblem[]): SliceProblem[] {
    this.rejected.set(file, problems);
    return problems;
  }

  private add({ file, text }: SliceText): DeployResult {
    return this.indexParsed(file, parseSlice(text, file));
  }

  private indexParsed(file: string, parsed: ParsedSlice): DeployResult {
    if (!parsed.ok) {
      this.forget(file);
      return { ok: false, problems: this.reject(file, parsed.problems) };
    }
    const { slice } = parsed;
    const id = slice.metadata.id;
    this.forget(file);
    const holder = this.slices.get(id);
    if (holder && holder.file !== file) {
      const problem = { file, ...parsed.idAt, field: 'metadata.id', message: `"${id}" is already the id of ${holder.file}; give this slice an id of its own (ids are unique across every slice folder)` };
      return { ok: false, problems: this.reject(file, [problem]) };
    }
    this.rejected.delete(file);
    this.index.put({
      id,
      domain: slice.metadata.domain,
      title: slice.metadata.title,
      concepts: slice.metadata.concepts.map((written) => ({ written, key: conceptKey(written) })),
      tags: slice.metadata.tags,
      knowledge: slice.knowledge,
      file,
    });
    this.slices.set(id, { slice, file });
    this.fileIds.set(file, id);
    return { ok: true, slice_id: id };
  }

  /** Takes out the slice a file held before, so a rewritten file with a new id leaves no old one behind. */
  private forget(file: string): void {
    const id = this.fileIds.get(file);
    if (id === undefined) return;
    this.index.remove(id);
    this.slices.delete(id);
    this.fileIds.delete(file);
  }

  /**
   * Slices for a query: concepts named exactly (1), then concepts it names part of or holds whole
   * (0.7), ties ranked by FTS5 over title and knowledge; then slices whose title or knowledge alone
   * holds its words (0.4), best first. One hit per slice.
   */
  search(query: string, options: { limit?: number } = {}): SliceHit[] {
    const requested = options.limit ?? 10;
    const limit = Number.isFinite(requested) ? Math.max(0, Math.min(MAX_LIMIT, Math.floor(requested))) : 10;
    const key = conceptKey(query);
    if (limit === 0 || key === '') return [];
    const { whole, partial } = this.index.conceptMatches(wordRuns(key), key, Math.max(CONCEPT_ROWS, limit * 10));
    const hits = new Map<string, { score: number; seq: number; concepts: { concept: string; score: number; position: number }[] }>();
    const seen = new Set<string>();
    const note = (match: ConceptMatch, score: number): void => {
      if (seen.has(`${match.seq}:${match.position}`)) return;
      seen.add(`${match.seq}:${match.position}`);
      const hit = hits.get(match.id) ?? { score: 0, seq: match.seq, concepts: [] };
      hit.score = Math.max(hit.score, score);
      hit.concepts.push({ concept: match.concept, score, position: match.position });
      hits.set(match.id, hit);
    };
    for (const match of whole) note(match, match.key === key ? EXACT : PARTIAL);
    for (const match of partial) note(match, PARTIAL);
    const text = this.index.textMatches(query, Math.max(limit * 4, 50));
    const textRank = new Map(text.map((id, rank) => [id, rank]));
    const rankOf = (id: string) => textRank.get(id) ?? Infinity;
    const ranked = [...hits.entries()]
      .sort(([a, x], [b, y]) => y.score - x.score || rankOf(a) - rankOf(b) || x.seq - y.seq)
      .map(([id, hit]) => ({
        slice_id: id,
        relevance_score: hit.score,
        matched_concepts: hit.concepts.sort((p, q) => q.score - p.score || p.position - q.position).map((c) => c.concept),
      }));
    for (const id of text) if (!hits.has(id)) ranked.push({ slice_id: id, relevance_score: TEXT_ONLY, matched_concepts: [] });
    return ranked.slice(0, limit);
  }

  /** Every slice's id, in load order. */
  ids(): string[] {
    return this.index.ids();
  }

  /** Ids of the slices of a domain (case-blind), in load order. */
  searchByDomain(domain: string): string[] {
    return this.index.byDomain(domain.toLowerCase());
  }

  /** The fewest links from one slice to another, or null when none leads there. */
  findConnections(fromId: string, toId: string): SliceConnection | null {
    return findConnection(fromId, toId, this.links);
  }

  /** A slice by its id, looked up in the index (never by its file's name); null when none has it. */
  loadSlice(id: string): LoadedSlice | null {
    const entry = this.index.entry(id);
    const held = entry ? this.slices.get(entry.id) : undefined;
    if (!entry || !held) return null;
    const { related, graph } = neighbourhood(entry.id, this.links);
    return { slice: held.slice, file: entry.file, related_slices: related, connection_graph: graph };
  }

  getStats(): NavigatorStats {
    const counts = this.index.counts();
    return { total_slices: counts.slices, total_concepts: counts.concepts, domains: counts.domains, rejected_files: this.rejected.size + this.missingRoots.length };
  }

  /** Every problem of every file left out, by file then line. */
  problems(): SliceProblem[] {
    return [...this.missingRoots, ...[...this.rejected.values()].flat()];
  }

  close(): void {
    this.index.close();
  }

  private readonly links: SliceLinks = (id) => {
    const held = this.slices.get(id);
    return held ? { links: Object.values(held.slice.metadata.connects_to), concepts: held.slice.metadata.concepts } : undefined;
  };
}
