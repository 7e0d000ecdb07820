import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSilas, runSilasProcess } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// The conformance data lives beside the repository (../shared), as in CI.
const DATA = fileURLToPath(new URL('../../../../shared/conformance/aap/', import.meta.url));
const at = (path: string) => join(DATA, path);
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const tempDir = useTempDirs('silas-aap-');

interface Report {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  results: { id: string; file: string; status: string; reason: string }[];
}

describe('silas aap conformance', () => {
  it('passes every case of the data folder with the README goldens (exit 0)', async () => {
    const { code, out } = await runSilas(['aap', 'conformance', DATA, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as Report;
    expect(report).toMatchObject({ total: 59, passed: 54, failed: 0, skipped: 5 });
    const status = (file: string, id: string) => report.results.find((r) => r.file === file && r.id === id);
    for (const [file, reason] of [
      ['vectors/valid_traces/compliant_recommendation.json', 'similarity 0.3642'],
      ['vectors/valid_traces/approved_escalation.json', 'similarity 0.1885'],
      ['vectors/invalid_traces/forbidden_action.json', 'similarity 0.1210'],
      ['vectors/invalid_traces/missed_escalation.json', 'similarity 0.1133'],
      ['vectors/invalid_traces/undeclared_value.json', 'similarity 0.1138'],
      ['playground/compliant-trace.json', 'similarity 0.2657'],
      ['playground/forbidden-action.json', 'similarity 0.1088'],
    ]) {
      expect(status(file!, 'verify'), file).toMatchObject({ status: 'passed', reason: expect.stringContaining(reason!) });
    }
    expect(status('vectors/drift_cases/value_drift_sequence.json', 'drift')).toMatchObject({ status: 'passed', reason: 'baseline 3, alert unknown 0.2332' });
    expect(status('vectors/drift_cases/autonomy_expansion_sequence.json', 'drift')).toMatchObject({ status: 'passed', reason: 'baseline 3, alert autonomy_expansion 0.081' });
    expect(status('examples/a2a-integration/user-agent-card.json', 'coherence-vendor')).toMatchObject({ status: 'passed', reason: 'score 0.1327, not compatible, 1 conflict' });
    expect(status('examples/a2a-integration/user-agent-card.json', 'coherence-compatible-vendor')).toMatchObject({ status: 'passed', reason: 'score 1, compatible, 0 conflicts' });
    expect(status('examples/alignment-failure/user-agent-card.json', 'coherence-vendor')).toMatchObject({ status: 'passed', reason: 'score 0, not compatible, 2 conflicts' });
    expect(status('playground/coherence-conflict.json', 'coherence')).toMatchObject({ status: 'passed', reason: 'score 0, not compatible, 4 conflicts' });
    expect(report.results.filter((r) => r.status === 'skipped').map((r) => r.file)).toEqual([
      'calibration/calibration-ssm-braid-alignment.json',
      'calibration/calibration-ssm-convergent.json',
      'calibration/calibration-ssm-elenchus.json',
      'calibration/calibration-ssm-implementation.json',
      'examples/alignment-failure/coherence-result.json',
    ]);
  });

  it('fails (exit 1) naming the case when the data changes, a file goes missing or appears', async () => {
    const dir = join(tempDir(), 'aap');
    cpSync(DATA, dir, { recursive: true });
    const path = join(dir, 'vectors/invalid_traces/undeclared_value.json');
    const vector = JSON.parse(readFileSync(path, 'utf8')) as { trace: { decision: { values_applied: string[] } } };
    vector.trace.decision.values_applied = ['profit_maximization'];
    writeFileSync(path, JSON.stringify(vector));
    rmSync(join(dir, 'playground/value-drift.json'));
    writeFileSync(join(dir, 'vectors/new.json'), '{}');
    const { code, out } = await runSilas(['aap', 'conformance', dir]);
    expect(code).toBe(1);
    expect(out).toMatch(/FAILED {2}vectors\/invalid_traces\/undeclared_value\.json#verify: violations \["undeclared_value"\], expected \["undeclared_value","undeclared_value"\]/);
    expect(out).toMatch(/FAILED {2}playground\/value-drift\.json#drift: missing from /);
    expect(out).toMatch(/SKIPPED vectors\/new\.json#data: no expected output is known for this file/);
  });

  it('runs through the real binary', () => {
    const { code, out } = runSilasProcess(['aap', 'conformance', DATA]);
    expect(code).toBe(0);
    expect(out).toMatch(/AAP conformance: 54 passed, 0 failed, 5 skipped of 59/);
  });
});

describe('silas aap verify', () => {
  it.each([
    ['vectors/valid_traces/compliant_recommendation.json', 0, true, [], ['low_behavioral_similarity'], 0.3642, 'review'],
    ['vectors/valid_traces/approved_escalation.json', 0, true, [], ['near_boundary', 'low_behavioral_similarity'], 0.1885, 'review'],
    ['vectors/invalid_traces/forbidden_action.json', 1, false, ['forbidden_action'], [], 0.121, 'deny'],
    ['vectors/invalid_traces/missed_escalation.json', 1, false, ['missed_escalation'], [], 0.1133, 'deny'],
    ['vectors/invalid_traces/undeclared_value.json', 1, false, ['undeclared_value', 'undeclared_value'], [], 0.1138, 'deny'],
    ['playground/compliant-trace.json', 0, true, [], ['low_behavioral_similarity'], 0.2657, 'review'],
    ['playground/forbidden-action.json', 1, false, ['forbidden_action'], [], 0.1088, 'deny'],
  ])('%s: exit %i, verified %s, goldens to 4 decimals', async (file, exit, verified, violations, warnings, similarity, action) => {
    const { code, out } = await runSilas(['aap', 'verify', '--card', at(file), '--trace', at(file), '--json', '--now', '2026-03-01T00:00:00Z']);
    expect(code).toBe(exit);
    const result = JSON.parse(out) as { verified: boolean; violations: { type: string }[]; warnings: { type: string }[]; similarity_score: number; recommended_action: string; timestamp: string };
    expect(result.verified).toBe(verified);
    expect(result.violations.map((v) => v.type)).toEqual(violations);
    expect(result.warnings.map((w) => w.type)).toEqual(warnings);
    expect(round4(result.similarity_score)).toBe(similarity);
    expect(result.recommended_action).toBe(action);
    expect(result.timestamp).toBe('2026-03-01T00:00:00.000Z');
  });

  it('prints a readable report and notes what keeps the card from activation', async () => {
    const { code, out, err } = await runSilas(['aap', 'verify', '--card', at('playground/forbidden-action.json'), '--trace', at('playground/forbidden-action.json')]);
    expect(code).toBe(1);
    expect(out).toMatch(/^tr-forbidden-001 against ac-shopping-assistant-001: NOT verified, similarity 0\.1088, recommended action: deny\n {2}violation forbidden_action \[critical\] at action\.name: Action 'auto_purchase' is forbidden/);
    expect(err).toMatch(/note: .*forbidden-action\.json: card\.audit_commitment\.query_endpoint: missing while queryable is true/);
  });
});

describe('silas aap drift and coherence', () => {
  it('finds the drift alerts of the vectors (exit 1) and none in quiet histories (exit 0)', async () => {
    const vector = at('vectors/drift_cases/autonomy_expansion_sequence.json');
    const drift = await runSilas(['aap', 'drift', '--card', vector, vector, '--json']);
    expect(drift.code).toBe(1);
    const report = JSON.parse(drift.out) as { traces: number; baseline_size: number; alerts: { trace_ids: string[]; analysis: { similarity_score: number; drift_direction: string } }[] };
    expect(report).toMatchObject({ traces: 10, baseline_size: 3 });
    expect(report.alerts.map((a) => [a.trace_ids.at(-1), round4(a.analysis.similarity_score), a.analysis.drift_direction])).toEqual([['tr-drift-a-008', 0.081, 'autonomy_expansion']]);
    const value = await runSilas(['aap', 'drift', '--card', at('vectors/drift_cases/value_drift_sequence.json'), at('vectors/drift_cases/value_drift_sequence.json')]);
    expect(value.code).toBe(1);
    expect(value.out).toMatch(/ALERT at 2026-01-31T14:00:00Z: unknown, similarity 0\.2332 < 0\.3 for 3 traces \(tr-drift-v-006, tr-drift-v-007, tr-drift-v-008\)/);
    expect((await runSilas(['aap', 'drift', '--card', at('playground/value-drift.json'), at('playground/value-drift.json')])).code).toBe(0);
    expect((await runSilas(['aap', 'drift', '--card', at('examples/alignment-failure/user-agent-card.json'), at('examples/alignment-failure/drift-traces.json')])).code).toBe(0);
  });

  it('reads a folder of trace files and JSON lines', async () => {
    const dir = tempDir();
    const vector = JSON.parse(readFileSync(at('vectors/drift_cases/value_drift_sequence.json'), 'utf8')) as { traces: unknown[] };
    mkdirSync(join(dir, 'traces'));
    writeFileSync(join(dir, 'traces', 'a.jsonl'), `${vector.traces.slice(0, 5).map((t) => JSON.stringify(t)).join('\n')}\n`);
    writeFileSync(join(dir, 'traces', 'b.json'), JSON.stringify(vector.traces.slice(5)));
    writeFileSync(join(dir, 'traces', 'notes.txt'), 'ignored');
    const { code, out } = await runSilas(['aap', 'drift', '--card', at('vectors/drift_cases/value_drift_sequence.json'), join(dir, 'traces'), '--json']);
    expect(code).toBe(1);
    expect((JSON.parse(out) as { traces: number; alerts: unknown[] }).alerts).toHaveLength(1);
    const quiet = await runSilas(['aap', 'drift', '--card', at('vectors/drift_cases/value_drift_sequence.json'), join(dir, 'traces'), '--sustained', '5']);
    expect(quiet.code).toBe(0);
  });

  it('scores coherence with the goldens, with and without task values', async () => {
    const user = at('examples/a2a-integration/user-agent-card.json');
    const vendor = await runSilas(['aap', 'coherence', user, at('examples/a2a-integration/vendor-agent-card.json'), '--json']);
    expect(vendor.code).toBe(1);
    expect(JSON.parse(vendor.out)).toMatchObject({ initiator: 'ac-user-shopping-001', responder: 'ac-vendor-deals-001', compatible: false, value_alignment: { conflicts: [{ description: "Responder's 'upselling' is in initiator's conflicts_with" }] } });
    expect(round4((JSON.parse(vendor.out) as { score: number }).score)).toBe(0.1327);
    const compatible = await runSilas(['aap', 'coherence', user, at('examples/a2a-integration/compatible-vendor-card.json')]);
    expect(compatible).toMatchObject({ code: 0, out: expect.stringMatching(/score 1\.0000, compatible, proceed/) });
    const failure = await runSilas(['aap', 'coherence', at('examples/alignment-failure/user-agent-card.json'), at('examples/alignment-failure/vendor-agent-card.json'), '--json']);
    expect(JSON.parse(failure.out)).toMatchObject({ score: 0, compatible: false });
    const task = await runSilas(['aap', 'coherence', user, at('examples/a2a-integration/vendor-agent-card.json'), '--task-values', 'transparency', '--json']);
    expect(JSON.parse(task.out)).toMatchObject({ task_values: ['transparency'], score: 0.5, value_alignment: { matched: ['transparency'], unmatched: [] } });
    const empty = await runSilas(['aap', 'coherence', user, at('examples/a2a-integration/vendor-agent-card.json'), '--task-values', '', '--json']);
    expect(round4((JSON.parse(empty.out) as { score: number }).score)).toBe(0.1327);
  });
});

describe('silas aap validate', () => {
  it('accepts valid cards and traces (exit 0)', async () => {
    expect(await runSilas(['aap', 'validate', 'card', at('examples/simple-agent/alignment-card.json')])).toMatchObject({ code: 0, out: expect.stringMatching(/valid Alignment Card ac-simple-agent-001 of agent simple-recommendation-agent$/) });
    expect(await runSilas(['aap', 'validate', 'trace', at('examples/mcp-integration/tool-invocation-traces.json')])).toMatchObject({ code: 0, out: expect.stringMatching(/4 valid AP-Traces$/) });
    expect(await runSilas(['aap', 'validate', 'card', at('examples/a2a-integration/user-agent-card.json')])).toMatchObject({ code: 0 });
  });

  it('names the path and what was expected for an invalid card (exit 1)', async () => {
    const mcp = await runSilas(['aap', 'validate', 'card', at('examples/mcp-integration/server-alignment-card.json')]);
    expect(mcp.code).toBe(1);
    expect(mcp.out).toMatch(/server-alignment-card\.json: autonomy_envelope\.escalation_triggers\[1\]\.condition: column 16: "path\.startswith\(" calls a function the language does not have/);
    const eu = await runSilas(['aap', 'validate', 'card', at('examples/eu-compliance/alignment-card.json'), '--json']);
    expect(eu.code).toBe(1);
    expect(JSON.parse(eu.out)).toMatchObject({ valid: false, errors: [{ path: 'values.definitions.transparency.name', message: 'missing; expected a string', expected: 'a string' }, { path: 'values.definitions.user_control.name' }] });
    const vendor = await runSilas(['aap', 'validate', 'card', at('examples/a2a-integration/vendor-agent-card.json')]);
    expect(vendor.out).toMatch(/alignment\.values\.declared\[0\]: custom value "customer_satisfaction" is not defined in values\.definitions/);
    const expired = await runSilas(['aap', 'validate', 'card', at('examples/simple-agent/alignment-card.json'), '--now', '2020-01-01T00:00:00Z']);
    expect(expired).toMatchObject({ code: 1, out: expect.stringMatching(/issued_at: 2026-01-31T23:56:51\.177485Z is in the future/) });
  });

  it('names the trace, line and path of an invalid trace', async () => {
    const dir = tempDir();
    const file = join(dir, 'traces.jsonl');
    const good = readFileSync(at('examples/a2a-integration/delegation-approved-trace.json'), 'utf8').replace(/\s+/g, ' ');
    writeFileSync(file, `${good}\n${good.replace('"selected": "delegate"', '"selected": "other"')}\n`);
    const { code, out } = await runSilas(['aap', 'validate', 'trace', file]);
    expect(code).toBe(1);
    expect(out).toMatch(/traces\.jsonl:2: decision\.selected: "other" is not the option_id of any alternative considered \(expected one of "delegate", "reject"\)/);
  });
});

describe('silas aap bad input and usage', () => {
  it('exits 2 naming the file for unreadable or unparsable input', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'broken.json'), '{"card_id": ');
    expect(await runSilas(['aap', 'validate', 'card', join(dir, 'broken.json')])).toMatchObject({ code: 2, err: expect.stringMatching(/broken\.json: line 1, column 13: not valid JSON \(ValueExpected\)/) });
    expect(await runSilas(['aap', 'verify', '--card', join(dir, 'absent.json'), '--trace', join(dir, 'broken.json')])).toMatchObject({ code: 2, err: expect.stringMatching(/absent\.json: cannot read: ENOENT/) });
  });

  it('exits 2 with the path when a card or trace cannot be used', async () => {
    const vector = at('vectors/invalid_traces/forbidden_action.json');
    const mcp = await runSilas(['aap', 'verify', '--card', at('examples/mcp-integration/server-alignment-card.json'), '--trace', at('examples/mcp-integration/tool-invocation-traces.json')]);
    expect(mcp).toMatchObject({ code: 2, err: expect.stringMatching(/server-alignment-card\.json: autonomy_envelope\.escalation_triggers\[1\]\.condition: column 16/) });
    const many = await runSilas(['aap', 'verify', '--card', vector, '--trace', at('examples/mcp-integration/tool-invocation-traces.json')]);
    expect(many).toMatchObject({ code: 2, err: expect.stringMatching(/holds 4 traces; verify takes one/) });
    const partial = await runSilas(['aap', 'coherence', at('playground/coherence-conflict.json'), vector]);
    expect(partial).toMatchObject({ code: 2, err: expect.stringMatching(/coherence-conflict\.json: card_id: missing; expected a string/) });
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ trace_id: 'x' }]));
    const drift = await runSilas(['aap', 'drift', '--card', vector, join(dir, 'bad.json')]);
    expect(drift).toMatchObject({ code: 2, err: expect.stringMatching(/bad\.json: \[0\]\.agent_id: missing; expected a string/) });
  });

  it('exits 2 with the usage for bad usage', async () => {
    for (const argv of [['aap'], ['aap', 'frobnicate'], ['aap', 'validate', 'policy', 'x'], ['aap', 'validate', 'card'], ['aap', 'verify', '--card', 'x'], ['aap', 'coherence', 'a'], ['aap', 'drift', 'x'], ['aap', 'drift', '--card', 'c'], ['aap', 'drift', '--card', 'c', 't', '--threshold', '2'], ['aap', 'verify', '--card', 'c', '--trace', 't', '--now', 'noon'], ['aap', 'conformance'], ['aap', 'verify', '--bogus']]) {
      const result = await runSilas(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(/Usage: silas aap/);
    }
    expect(await runSilas(['aap', '--help'])).toMatchObject({ code: 0, out: expect.stringMatching(/^Usage: silas aap <validate\|verify\|coherence\|drift\|conformance>/) });
  });
});
