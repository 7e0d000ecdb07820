import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSilas } from '../../testing/cli.js';
import { CONSTITUTION_DEVIATIONS } from './deviations.js';
import { runIlpConformance } from './runner.js';

/*
 * The ILP conformance data (../shared/conformance/ilp): every RFC example message and payload, and
 * each of the reference's 26 constitution cases answered as the reference does or as its listed
 * deviation says (docs/conformance.md "ILP constitution").
 */

const DATA = fileURLToPath(new URL('../../../../shared/conformance/ilp/', import.meta.url));

describe('ILP conformance', () => {
  const report = runIlpConformance([DATA]);

  it('passes every case it runs; skips only what is not built yet', () => {
    expect(report.results.filter((r) => r.status === 'failed')).toEqual([]);
    expect(report).toMatchObject({ total: 141, passed: 141, failed: 0, skipped: 0 });
  });

  it('runs the 15 messages, 7 payloads and 26 constitution cases', () => {
    const of = (pattern: RegExp) => report.results.filter((r) => pattern.test(r.file)).length;
    expect(of(/^rfc-examples\/messages\//)).toBe(15);
    expect(of(/^rfc-examples\/payloads\//)).toBe(7);
    expect(of(/constitution-cases\.json$/)).toBe(26);
  });

  it('every listed deviation is a case the data holds, passed as documented', () => {
    const deviations = report.results.filter((r) => r.reason?.startsWith('documented deviation'));
    expect(deviations.map((r) => r.id).filter((id) => CONSTITUTION_DEVIATIONS.has(id)).sort()).toEqual([...CONSTITUTION_DEVIATIONS.keys()].sort());
    expect(deviations.filter((r) => r.file.endsWith('.ilp')).map((r) => r.file)).toEqual(['rfc-examples/messages/5.3-think-request.ilp', 'rfc-examples/messages/5.4-think-response-200.ilp']);
  });

  it('silas ilp conformance prints the same report and exits 0', async () => {
    const { code, out } = await runSilas(['ilp', 'conformance', DATA, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(report);
    expect((await runSilas(['ilp', 'conformance'])).code).toBe(2);
  });
});
