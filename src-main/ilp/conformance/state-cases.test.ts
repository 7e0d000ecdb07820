import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { attentionCases } from './attention-cases.js';
import { ATTENTION_DEVIATIONS, MEMORY_DEVIATIONS } from './deviations.js';
import { memoryCases } from './memory-cases.js';

/*
 * The reference's attention and episodic-memory cases (docs/conformance.md "ILP attention",
 * "ILP episodic memory"): every case passes, and every listed deviation is a case the data holds,
 * passed as documented.
 */

const DATA = fileURLToPath(new URL('../../../../shared/conformance/ilp/reference-behavior/', import.meta.url));

describe('ILP attention and episodic-memory cases', () => {
  for (const [name, run, deviations, count] of [
    ['attention-cases.json', attentionCases, ATTENTION_DEVIATIONS, 9],
    ['episodic-memory-cases.json', memoryCases, MEMORY_DEVIATIONS, 11],
  ] as const) {
    it(`${name}: ${count} cases pass, the listed deviations as documented`, () => {
      const results = run(`${DATA}${name}`, name);
      expect(results.filter((r) => r.status !== 'passed')).toEqual([]);
      expect(results).toHaveLength(count);
      const documented = results.filter((r) => r.reason?.startsWith('documented deviation')).map((r) => r.id);
      expect(documented.sort()).toEqual([...deviations.keys()].sort());
    });
  }
});
