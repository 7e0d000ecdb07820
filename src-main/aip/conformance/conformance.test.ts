import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSilas } from '../../testing/cli.js';
import { IDENTITY_SKIP_REASON, runConformance } from './runner.js';
import { KNOWN_DEVIATIONS } from './deviations.js';

// The upstream vectors live beside the repository (../shared), as in CI.
const VECTORS = fileURLToPath(new URL('../../../../shared/conformance/aip/', import.meta.url));

describe('AIP conformance vectors', () => {
  const report = runConformance([VECTORS]);

  it('passes every basic and full vector that does not contradict the spec', () => {
    const basicFull = report.results.filter((r) => /^(basic|full)\//.test(r.file));
    expect(basicFull).toHaveLength(65);
    const failures = basicFull.filter((r) => r.status === 'failed');
    expect(failures, failures.map((f) => `${f.file}#${f.id}: ${f.reason}`).join('\n')).toEqual([]);
    const skipped = basicFull.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBe(KNOWN_DEVIATIONS.size);
    expect(basicFull.filter((r) => r.status === 'passed')).toHaveLength(65 - KNOWN_DEVIATIONS.size);
  });

  it('reports identity and server vectors as skipped with the reason', () => {
    const later = report.results.filter((r) => /^(identity|server)\//.test(r.file));
    expect(later).toHaveLength(47);
    expect(later.every((r) => r.status === 'skipped' && r.reason === IDENTITY_SKIP_REASON)).toBe(true);
    expect(report.total).toBe(112);
  });

  it('`silas aip conformance --json` prints the report and exits 0', async () => {
    const result = await runSilas(['aip', 'conformance', VECTORS, '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.out) as { total: number; passed: number; failed: number; skipped: number; results: { id: string; file: string; status: string; reason: string }[] };
    expect(json).toMatchObject({ total: 112, failed: 0, passed: 65 - KNOWN_DEVIATIONS.size });
    expect(json.results[0]).toEqual({ id: expect.any(String), file: expect.any(String), status: expect.any(String), reason: expect.any(String) });
  });

  it('fails (exit 1) and names the vector when a vector does not hold', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'silas-vectors-'));
    writeFileSync(
      join(dir, 'wrong.yaml'),
      `name: wrong\nspec_version: aip.io/v1alpha1\ntests:\n  - id: "w-1"\n    description: "claims a blocked tool is allowed"\n    policy: |\n      apiVersion: aip.io/v1alpha1\n      kind: AgentPolicy\n      metadata:\n        name: t\n      spec:\n        allowed_tools: [a]\n    input:\n      method: tools/call\n      tool: b\n      args: {}\n    expected:\n      decision: ALLOW\n`,
    );
    const result = await runSilas(['aip', 'conformance', dir]);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/FAILED\s+wrong\.yaml#w-1: decision: expected "ALLOW", got "BLOCK"/);
  });

  it('usage errors exit 2', async () => {
    expect((await runSilas(['aip', 'conformance'])).code).toBe(2);
    expect((await runSilas(['aip', 'conformance', '/nonexistent/vectors'])).code).toBe(2);
    expect((await runSilas(['aip', 'frob'])).code).toBe(2);
  });
});
