import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NAVIGATOR_DEVIATIONS } from './deviations.js';
import { navigatorCases } from './navigator-cases.js';

/*
 * The reference navigator's observed cases (reference-behavior/navigator-cases.json) over both
 * fixture folders: each answered as the reference does, or exactly as its listed deviation says
 * (docs/conformance.md "ILP navigator").
 */

const FILE = fileURLToPath(new URL('../../../../shared/conformance/ilp/reference-behavior/navigator-cases.json', import.meta.url));
const results = navigatorCases(FILE, 'reference-behavior/navigator-cases.json');

describe('ILP navigator conformance', () => {
  it('runs all 73 cases and passes each', () => {
    expect(results.filter((r) => r.status !== 'passed')).toEqual([]);
    expect(results).toHaveLength(73);
    const of = (prefix: string) => results.filter((r) => r.id.startsWith(prefix)).length;
    expect([of('slices: '), of('navigator-test-slices: ')]).toEqual([23, 50]);
  });

  it('passes every listed deviation as documented, and no other case', () => {
    const documented = results.filter((r) => r.reason?.startsWith('documented deviation'));
    expect(documented.map((r) => r.id).sort()).toEqual([...NAVIGATOR_DEVIATIONS.keys()].sort());
    expect(documented).toHaveLength(17);
    for (const deviation of NAVIGATOR_DEVIATIONS.values()) expect(deviation.section).toMatch(/^§\d/);
  });

  it('loads test-yml and isolated-slice by id, which the reference cannot', () => {
    expect(results.find((r) => r.id === 'navigator-test-slices: loadSlice test-yml')?.reason).toMatch(/loaded by its id through the index/);
  });
});
