import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DlpEngine } from './engine.js';
import { dlpConfigFromBlock } from './testing/dlp.js';

// The upstream DLP vectors (../shared beside the repository, as in CI), run against the engine
// directly: the policy's `dlp:` block is turned into a DlpConfig by a small helper.
const FILE = fileURLToPath(new URL('../../../../shared/conformance/aip/full/dlp.yaml', import.meta.url));

interface Vector {
  id: string;
  description: string;
  policy: string;
  input: { type: 'request' | 'response'; content: string };
  expected: { redacted: boolean; output: string; dlp_events?: { rule: string; count: number }[] };
}

const suite = parse(readFileSync(FILE, 'utf8')) as { tests: Vector[] };

describe('dlp.yaml conformance vectors', () => {
  it('has the nine vectors', () => {
    expect(suite.tests.map((t) => t.id)).toEqual(['dlp-001', 'dlp-002', 'dlp-010', 'dlp-020', 'dlp-030', 'dlp-040', 'dlp-041', 'dlp-042', 'dlp-050']);
  });

  for (const vector of suite.tests) {
    it(`${vector.id}: ${vector.description}`, () => {
      const policy = parse(vector.policy) as { spec: { dlp: Record<string, unknown> } };
      const engine = new DlpEngine(dlpConfigFromBlock(policy.spec.dlp));
      const result = engine.scanText(vector.input.content, vector.input.type);
      expect(result.output).toBe(vector.expected.output);
      expect(result.redacted).toBe(vector.expected.redacted);
      if (vector.expected.dlp_events !== undefined) expect(result.events).toEqual(vector.expected.dlp_events);
      expect(result.warnings).toEqual([]);
    });
  }
});
