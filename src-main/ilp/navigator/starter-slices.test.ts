import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SliceNavigator } from './navigator.js';

/*
 * The starter slices shipped in resources/slices/ (docs/ilp.md "Navigator and slices"): written
 * for this project, every one valid and scanned clean, linked into one graph.
 */

const STARTER = fileURLToPath(new URL('../../../resources/slices/', import.meta.url));
const navigator = new SliceNavigator([STARTER]);
afterAll(() => navigator.close());

describe('resources/slices', () => {
  it('loads with zero problems', () => {
    expect(navigator.problems()).toEqual([]);
    expect(navigator.getStats()).toMatchObject({ total_slices: 8, domains: 6, rejected_files: 0 });
  });

  it('links only to slices that exist, and every slice reaches every other', () => {
    const ids = navigator.ids();
    for (const id of ids) {
      const loaded = navigator.loadSlice(id)!;
      expect(Object.values(loaded.slice.metadata.connects_to).filter((link) => !ids.includes(link)), id).toEqual([]);
      expect(loaded.slice.references.length, id).toBeGreaterThanOrEqual(3);
      expect(loaded.slice.principles.length, id).toBeGreaterThanOrEqual(3);
      for (const other of ids) expect(navigator.findConnections(id, other), `${id} -> ${other}`).not.toBeNull();
    }
  });

  it('answers a cross-domain question by concept', () => {
    expect(navigator.search('negative feedback').slice(0, 2).map((hit) => [hit.slice_id, hit.relevance_score])).toEqual([
      ['control-feedback-loops', 1],
      ['physiological-homeostasis', 1],
    ]);
    expect(navigator.searchByDomain('security')).toEqual(['defence-in-depth', 'least-privilege']);
  });
});
