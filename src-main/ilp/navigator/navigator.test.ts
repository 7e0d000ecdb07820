import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conceptKey, SliceNavigator } from './navigator.js';

/*
 * The navigator on slices of our own: search scores and order, domains, links, loading by id, and
 * deploy/reload making a written slice visible at once (docs/ilp.md "Navigator and slices"). The
 * reference's observed cases run in ../conformance/navigator-cases.test.ts.
 */

interface Spec {
  id: string;
  domain?: string;
  title?: string;
  concepts: string[];
  links?: Record<string, string>;
  knowledge?: string;
}

function text(spec: Spec): string {
  return [
    'metadata:',
    `  id: ${spec.id}`,
    `  domain: ${spec.domain ?? 'systems'}`,
    `  title: ${spec.title ?? `About ${spec.id}`}`,
    `  concepts: [${spec.concepts.join(', ')}]`,
    `  connects_to: ${JSON.stringify(spec.links ?? {})}`,
    '  tags: []',
    '  version: "1.0"',
    `knowledge: ${JSON.stringify(spec.knowledge ?? 'Plain knowledge.')}`,
    '',
  ].join('\n');
}

let dir: string;
let navigator: SliceNavigator | undefined;
const write = (name: string, spec: Spec) => {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text(spec));
  return path;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'silas-slices-'));
});
afterEach(() => {
  navigator?.close();
  navigator = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('search', () => {
  beforeEach(() => {
    write('a.slice.yaml', { id: 'thermostat', concepts: ['negative_feedback', 'set_point'], knowledge: 'A thermostat is the textbook feedback device.' });
    write('b.slice.yaml', { id: 'reserves', domain: 'finance', concepts: ['emergency_fund', 'spending_feedback'], knowledge: 'Reserves absorb shocks.' });
    write('c.slice.yaml', { id: 'growth', concepts: ['positive_feedback', 'reinforcing_loop'], title: 'Feedback that grows', knowledge: 'Growth compounds.' });
    write('d.slice.yaml', { id: 'cells', domain: 'biology', concepts: ['homeostasis'], knowledge: 'Cells defend a set point through negative feedback.' });
    navigator = new SliceNavigator([dir]);
  });

  it('scores an exact concept 1, a part or a concept within the query 0.7, text alone 0.4', () => {
    expect(navigator!.search('Set Point')).toEqual([
      { slice_id: 'thermostat', relevance_score: 1, matched_concepts: ['set_point'] },
      { slice_id: 'cells', relevance_score: 0.4, matched_concepts: [] },
    ]);
    expect(navigator!.search('how does a negative feedback loop work').slice(0, 1)).toEqual([{ slice_id: 'thermostat', relevance_score: 0.7, matched_concepts: ['negative_feedback'] }]);
    expect(navigator!.search('homeo')).toEqual([{ slice_id: 'cells', relevance_score: 0.7, matched_concepts: ['homeostasis'] }]);
  });

  it('gives one hit per slice, ties ranked by title and knowledge, then load order', () => {
    expect(navigator!.search('feedback')).toEqual([
      { slice_id: 'growth', relevance_score: 0.7, matched_concepts: ['positive_feedback'] },
      { slice_id: 'thermostat', relevance_score: 0.7, matched_concepts: ['negative_feedback'] },
      { slice_id: 'reserves', relevance_score: 0.7, matched_concepts: ['spending_feedback'] },
      { slice_id: 'cells', relevance_score: 0.4, matched_concepts: [] },
    ]);
    expect(navigator!.search('feedback', { limit: 2 }).map((hit) => hit.slice_id)).toEqual(['growth', 'thermostat']);
  });

  it('answers nothing for nothing: empty, punctuation, two letters, an unknown word', () => {
    for (const query of ['', '  ', '"*()', 'fe', 'nothing-like-it']) expect(navigator!.search(query), query).toEqual([]);
    expect(navigator!.search('feedback', { limit: 0 })).toEqual([]);
    expect(navigator!.search('feedback', { limit: Number.NaN })).toHaveLength(4);
    expect(navigator!.search('feedback', { limit: 1e9 })).toHaveLength(4);
  });

  it('finds by domain case-blind, and counts distinct concepts', () => {
    expect(navigator!.searchByDomain('SYSTEMS')).toEqual(['thermostat', 'growth']);
    expect(navigator!.searchByDomain('none')).toEqual([]);
    expect(navigator!.getStats()).toEqual({ total_slices: 4, total_concepts: 7, domains: 3, rejected_files: 0 });
  });
});

describe('links and loading', () => {
  it('finds the fewest links, following their direction, and null when none leads there', () => {
    write('a.slice.yaml', { id: 'a', concepts: ['x', 'shared'], links: { finance: 'b' } });
    write('b.slice.yaml', { id: 'b', concepts: ['y'], links: { biology: 'c', systems: 'a' } });
    write('c.slice.yaml', { id: 'c', concepts: ['Shared'], links: { systems: 'gone' } });
    navigator = new SliceNavigator([dir]);
    expect(navigator.findConnections('a', 'c')).toEqual({ path: ['a', 'b', 'c'], shared_concepts: ['shared'] });
    expect(navigator.findConnections('c', 'a')).toBeNull();
    expect(navigator.findConnections('a', 'nowhere')).toBeNull();
    expect(navigator.loadSlice('c')).toMatchObject({ related_slices: [], connection_graph: {} });
    expect(navigator.loadSlice('b')).toMatchObject({ related_slices: ['c', 'a'], connection_graph: { b: ['c', 'a'], c: [], a: ['b'] } });
  });

  it('loads a slice by its id, whatever its file is called', () => {
    write('test.slice.yml', { id: 'test-yml', concepts: ['test'] });
    write('nested/deep/whatever.slice.yaml', { id: 'isolated-slice', concepts: ['isolated'] });
    navigator = new SliceNavigator([dir]);
    expect(navigator.loadSlice('test-yml')).toMatchObject({ slice: { metadata: { id: 'test-yml' } }, file: join(dir, 'test.slice.yml') });
    expect(navigator.loadSlice('isolated-slice')?.slice.metadata.id).toBe('isolated-slice');
    expect(navigator.loadSlice('test')).toBeNull();
    expect(navigator.loadSlice('../test-yml')).toBeNull();
  });
});

describe('deploy and reload (spec 004 §4.3)', () => {
  it('a slice written and deployed is found at once; a rewrite replaces it; reload reads the disk again', () => {
    write('a.slice.yaml', { id: 'first', concepts: ['alpha'] });
    navigator = new SliceNavigator([dir]);
    const path = write('new/b.slice.yaml', { id: 'fresh', concepts: ['distilled_pattern'] });
    expect(navigator.search('distilled_pattern')).toEqual([]);
    expect(navigator.deploy(path)).toEqual({ ok: true, slice_id: 'fresh' });
    expect(navigator.search('distilled_pattern').map((hit) => hit.slice_id)).toEqual(['fresh']);
    write('new/b.slice.yaml', { id: 'renamed', concepts: ['distilled_pattern'] });
    expect(navigator.deploy(path)).toEqual({ ok: true, slice_id: 'renamed' });
    expect(navigator.ids()).toEqual(['first', 'renamed']);
    rmSync(path);
    expect(navigator.deploy(path)).toMatchObject({ ok: false, problems: [{ message: expect.stringContaining('ENOENT') }] });
    expect(navigator.ids()).toEqual(['first']);
    expect(navigator.reload()).toMatchObject({ total_slices: 1 });
    expect(navigator.ids()).toEqual(['first']);
  });

  it('refuses to deploy a file outside the folders, a misnamed one, a duplicate id or a broken slice, and keeps the rest', () => {
    write('a.slice.yaml', { id: 'first', concepts: ['alpha'] });
    navigator = new SliceNavigator([join(dir)]);
    const outside = mkdtempSync(join(tmpdir(), 'silas-outside-'));
    try {
      writeFileSync(join(outside, 'x.slice.yaml'), text({ id: 'outsider', concepts: ['x'] }));
      expect(navigator.deploy(join(outside, 'x.slice.yaml'))).toMatchObject({ ok: false, problems: [{ line: 1, message: expect.stringContaining('outside the slice folders') }] });
      expect(navigator.deploy(join(dir, '..', 'x.slice.yaml'))).toMatchObject({ ok: false });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    writeFileSync(join(dir, 'notes.yaml'), text({ id: 'notes', concepts: ['x'] }));
    expect(navigator.deploy(join(dir, 'notes.yaml'))).toMatchObject({ ok: false, problems: [{ message: expect.stringContaining('NAME.slice.yaml') }] });
    const twin = write('twin.slice.yaml', { id: 'first', concepts: ['beta'] });
    expect(navigator.deploy(twin)).toMatchObject({ ok: false, problems: [{ line: 2, column: 7, field: 'metadata.id', message: expect.stringContaining(`already the id of ${join(dir, 'a.slice.yaml')}`) }] });
    writeFileSync(join(dir, 'broken.slice.yaml'), 'metadata: [');
    expect(navigator.deploy(join(dir, 'broken.slice.yaml'))).toMatchObject({ ok: false });
    expect(navigator.ids()).toEqual(['first']);
    expect(navigator.search('alpha').map((hit) => hit.slice_id)).toEqual(['first']);
    expect(navigator.getStats().rejected_files).toBe(5);
  });

  it('reports a folder that cannot be read, still reads the others, and reads it once it exists', () => {
    write('a.slice.yaml', { id: 'first', concepts: ['alpha'] });
    navigator = new SliceNavigator([join(dir, 'missing'), dir]);
    expect(navigator.ids()).toEqual(['first']);
    expect(navigator.problems()).toEqual([expect.objectContaining({ file: join(dir, 'missing'), message: expect.stringContaining('ENOENT') })]);
    write('missing/b.slice.yaml', { id: 'second', concepts: ['beta'] });
    navigator.reload();
    expect(navigator.ids()).toEqual(['second', 'first']);
    expect(navigator.problems()).toEqual([]);
  });
});

describe('slices given as text (the slice registry, spec 004 §4.3)', () => {
  it('indexes a registry slice at once, replaces it with its next version, and removes it', () => {
    write('a.slice.yaml', { id: 'first', concepts: ['alpha'] });
    navigator = new SliceNavigator([dir]);
    expect(navigator.deployText('learned-x', text({ id: 'learned-x', concepts: ['distilled_pattern'], knowledge: 'Version one.' }), 'slice-registry:learned-x@v1')).toEqual({ ok: true, slice_id: 'learned-x' });
    expect(navigator.search('distilled_pattern').map((hit) => hit.slice_id)).toEqual(['learned-x']);
    expect(navigator.loadSlice('learned-x')).toMatchObject({ file: 'slice-registry:learned-x@v1', slice: { knowledge: 'Version one.' } });
    expect(navigator.deployText('learned-x', text({ id: 'learned-x', concepts: ['distilled_pattern'], knowledge: 'Version two.' }), 'slice-registry:learned-x@v2')).toEqual({ ok: true, slice_id: 'learned-x' });
    expect(navigator.loadSlice('learned-x')).toMatchObject({ file: 'slice-registry:learned-x@v2', slice: { knowledge: 'Version two.' } });
    expect(navigator.ids()).toEqual(['first', 'learned-x']);
    expect(navigator.remove('learned-x')).toBe(true);
    expect(navigator.remove('learned-x')).toBe(false);
    expect(navigator.search('distilled_pattern')).toEqual([]);
    expect(navigator.loadSlice('learned-x')).toBeNull();
  });

  it("refuses an id that is a path, a text of another id, a broken text and a file's id, keeping the version held before", () => {
    write('a.slice.yaml', { id: 'first', concepts: ['alpha'] });
    navigator = new SliceNavigator([dir]);
    navigator.deployText('learned-x', text({ id: 'learned-x', concepts: ['kept'] }), 'slice-registry:learned-x@v1');
    expect(navigator.deployText('../../etc', text({ id: 'learned-y', concepts: ['x'] }), 'slice-registry:etc')).toMatchObject({ ok: false, problems: [{ field: 'metadata.id', message: expect.stringContaining('never a path') }] });
    expect(navigator.deployText('learned-x', text({ id: 'learned-z', concepts: ['x'] }), 'slice-registry:learned-x@v2')).toMatchObject({ ok: false, problems: [{ file: 'slice-registry:learned-x@v2', line: 2, message: expect.stringContaining('not "learned-x"') }] });
    expect(navigator.deployText('learned-x', 'metadata: [', 'slice-registry:learned-x@v3')).toMatchObject({ ok: false, problems: [{ file: 'slice-registry:learned-x@v3' }] });
    expect(navigator.deployText('first', text({ id: 'first', concepts: ['taken'] }), 'slice-registry:first@v1')).toMatchObject({ ok: false, problems: [{ message: expect.stringContaining(`already the id of ${join(dir, 'a.slice.yaml')}`) }] });
    expect(navigator.remove('first')).toBe(false);
    expect(navigator.search('kept').map((hit) => hit.slice_id)).toEqual(['learned-x']);
    expect(navigator.search('alpha').map((hit) => hit.slice_id)).toEqual(['first']);
    expect(navigator.problems()).toEqual([]);
  });

  it('keeps registry slices across a reload; a file that takes the id wins and the registry slice is reported', () => {
    navigator = new SliceNavigator([dir]);
    navigator.deployText('learned-x', text({ id: 'learned-x', concepts: ['distilled_pattern'] }), 'slice-registry:learned-x@v1');
    navigator.reload();
    expect(navigator.ids()).toEqual(['learned-x']);
    write('b.slice.yaml', { id: 'learned-x', concepts: ['from_a_file'] });
    navigator.reload();
    expect(navigator.search('from_a_file').map((hit) => hit.slice_id)).toEqual(['learned-x']);
    expect(navigator.problems()).toEqual([expect.objectContaining({ file: 'slice-registry:learned-x@v1', message: expect.stringContaining('already the id of') })]);
  });
});

describe('conceptKey', () => {
  it('is case-blind and treats any run of separators as one _', () => {
    expect(conceptKey('Negative Feedback')).toBe('negative_feedback');
    expect(conceptKey('  set-point__regulation ')).toBe('set_point_regulation');
    expect(conceptKey('"*()')).toBe('');
  });
});
