import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SliceNavigator } from '../navigator/navigator.js';
import { NAVIGATOR_DEVIATIONS } from './deviations.js';

/*
 * The reference navigator's observed answers (conformance/ilp/reference-behavior/navigator-cases.json)
 * over the two fixture folders beside it, asked of our SliceNavigator: each call one case, named
 * `FOLDER: call argument`. Our answer is put in the reference's shape; it passes when it is the
 * reference's, or, for a case listed in NAVIGATOR_DEVIATIONS, exactly the listed answer
 * (docs/conformance.md "ILP navigator").
 */

interface CaseResult {
  id: string;
  file: string;
  status: 'passed' | 'failed';
  reason?: string;
}

interface FolderCases {
  slice_ids: string[];
  stats_after_load: Record<string, number>;
  search: Record<string, unknown>;
  searchByDomain: Record<string, unknown>;
  findConnections: Record<string, unknown>;
  loadSlice: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a deviation expects: its answer, or its fields over the reference's where both are objects. */
function expectedOf(reference: unknown, answer: unknown): unknown {
  return isRecord(reference) && isRecord(answer) && !('error' in reference) ? { ...reference, ...answer } : answer;
}

/** Our answer with only the fields the expected answer has (we report more than the reference). */
function inShape(ours: unknown, expected: unknown): unknown {
  if (!isRecord(ours) || !isRecord(expected)) return ours;
  return Object.fromEntries(Object.keys(expected).map((key) => [key, ours[key]]));
}

function judge(id: string, file: string, ours: unknown, reference: unknown): CaseResult {
  const deviation = NAVIGATOR_DEVIATIONS.get(id);
  if (deviation) {
    const expected = expectedOf(reference, deviation.answer);
    const same = isDeepStrictEqual(inShape(ours, expected), expected);
    return same
      ? { id, file, status: 'passed', reason: `documented deviation (${deviation.section}): ${deviation.why}` }
      : { id, file, status: 'failed', reason: `expected the listed deviation ${JSON.stringify(expected)}, got ${JSON.stringify(inShape(ours, expected))}` };
  }
  const same = isDeepStrictEqual(inShape(ours, reference), reference);
  return same ? { id, file, status: 'passed' } : { id, file, status: 'failed', reason: `reference ${JSON.stringify(reference)}, ours ${JSON.stringify(inShape(ours, reference))}` };
}

function loaded(navigator: SliceNavigator, id: string): unknown {
  const found = navigator.loadSlice(id);
  if (!found) return { error: `no slice has the id ${id}` };
  const { slice } = found;
  return {
    related_slices: found.related_slices,
    connection_graph: found.connection_graph,
    knowledge_chars: slice.knowledge.length,
    examples: slice.examples.length,
    principles: slice.principles.length,
    formulas: Object.keys(slice.formulas),
    references: slice.references.length,
  };
}

function folderCases(folder: string, root: string, cases: FolderCases, file: string): CaseResult[] {
  const name = (call: string) => `${folder}: ${call}`;
  if (!existsSync(root)) return [{ id: name('load'), file, status: 'failed', reason: `the fixture folder ${root} is missing` }];
  const navigator = new SliceNavigator([root]);
  try {
    const results: CaseResult[] = [];
    const problems = navigator.problems();
    results.push(problems.length > 0 ? { id: name('slice_ids'), file, status: 'failed', reason: `problems: ${JSON.stringify(problems)}` } : judge(name('slice_ids'), file, navigator.ids().sort(), cases.slice_ids));
    results.push(judge(name('stats_after_load'), file, navigator.getStats(), cases.stats_after_load));
    for (const [query, reference] of Object.entries(cases.search)) results.push(judge(name(`search "${query}"`), file, navigator.search(query), reference));
    for (const [domain, reference] of Object.entries(cases.searchByDomain)) results.push(judge(name(`searchByDomain "${domain}"`), file, navigator.searchByDomain(domain), reference));
    for (const [pair, reference] of Object.entries(cases.findConnections)) {
      const [from, to] = pair.split(' -> ');
      results.push(judge(name(`findConnections ${pair}`), file, navigator.findConnections(from!, to!), reference));
    }
    for (const [id, reference] of Object.entries(cases.loadSlice)) results.push(judge(name(`loadSlice ${id}`), file, loaded(navigator, id), reference));
    return results;
  } finally {
    navigator.close();
  }
}

/** Every case of navigator-cases.json at `path`; its folders are the JSON's keys, beside its own folder. */
export function navigatorCases(path: string, file: string): CaseResult[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const fixtures = join(dirname(path), '..');
  return Object.entries(data)
    .filter((entry): entry is [string, FolderCases] => /^[\w.-]+$/.test(entry[0]) && !entry[0].includes('..') && isRecord(entry[1]) && Array.isArray(entry[1].slice_ids))
    .flatMap(([folder, cases]) => folderCases(folder, join(fixtures, folder), cases, file));
}
