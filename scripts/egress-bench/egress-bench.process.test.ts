import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The runner end to end on cases of our own (never the corpus's strings): a fresh home, the real
// `silas proxy` with its sandbox, the SDK client, one proxy session per case. Needs the OS keyring
// (scripts/with-keyring.sh), as every proxy test does.

const RUN = fileURLToPath(new URL('./run.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Built at run time so no scanner of this repository mistakes the file for a leak.
const fakeAccessKey = `AKIA${'Q7'.repeat(8)}`;

function caseOf(id: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { schema_version: 1, id, title: id, description: '', severity: 'low', capability_tags: [], requires: [], false_positive_risk: 'low', why_expected: 'test', notes: '', source: '', ...fields };
}

const CASES = [
  caseOf('own-call-secret', {
    category: 'mcp_input',
    input_type: 'mcp_tool_call',
    transport: 'mcp_stdio',
    expected_verdict: 'block',
    payload: { jsonrpc_messages: [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'post_note', arguments: { text: `deploy with ${fakeAccessKey} today` } } }] },
  }),
  caseOf('own-call-benign', {
    category: 'mcp_input',
    input_type: 'mcp_tool_call',
    transport: 'mcp_stdio',
    expected_verdict: 'allow',
    safe_example: true,
    payload: { jsonrpc_messages: [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'post_note', arguments: { text: 'the build is green' } } }] },
  }),
  caseOf('own-definition-drift', {
    category: 'mcp_tool',
    input_type: 'mcp_tool_definition',
    transport: 'mcp_stdio',
    expected_verdict: 'block',
    requires: ['mcp_tool_baseline'],
    payload: { jsonrpc_messages: [{ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'lookup', description: 'Looks a word up in the glossary, now differently.', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } }] } }] },
  }),
  caseOf('own-response-benign', {
    category: 'response_fetch',
    input_type: 'response_content',
    transport: 'fetch_proxy',
    expected_verdict: 'allow',
    safe_example: true,
    payload: { url: 'https://docs.invalid/page', response_body: 'Chapter two: tables and chairs.' },
  }),
  caseOf('own-websocket', {
    category: 'websocket_dlp',
    input_type: 'websocket_frame',
    transport: 'websocket',
    expected_verdict: 'block',
    payload: { url: 'wss://socket.invalid/', frames: [{ opcode: 'text', payload: 'hello' }] },
  }),
];

const POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: egress-bench-test
spec:
  mode: enforce
  allowed_tools: []
  dlp:
    scan_requests: true
    scan_responses: true
    on_request_match: block
    patterns:
      - name: "AWS access key"
        regex: "\\\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\\\b"
`;

interface ResultLine {
  case_id: string;
  tool: string;
  tool_version: string;
  expected_verdict: string;
  actual_verdict: string;
  score: string;
  evidence: Record<string, unknown>;
  notes: string;
}

let dir: string;
let run: ReturnType<typeof spawnSync>;
let lines: ResultLine[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'egress-bench-test-'));
  const cases = join(dir, 'cases');
  mkdirSync(join(cases, 'own'), { recursive: true });
  for (const c of CASES) writeFileSync(join(cases, 'own', `${String(c.id)}.json`), JSON.stringify(c, null, 2));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  run = spawnSync(process.execPath, [RUN, '--cases', cases, '--policy', join(dir, 'policy.yaml'), '--out', join(dir, 'results.jsonl')], { cwd: ROOT, encoding: 'utf8', timeout: 100_000 });
  lines = readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ResultLine);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench:egress', () => {
  it('writes one RUNNER.md result line per case and the summary line', () => {
    expect(run.status, String(run.stderr)).toBe(0);
    expect(lines.map((l) => l.case_id)).toEqual(['own-call-benign', 'own-call-secret', 'own-definition-drift', 'own-response-benign', 'own-websocket']);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(['actual_verdict', 'case_id', 'evidence', 'expected_verdict', 'notes', 'score', 'tool', 'tool_version']);
      expect(line.tool).toBe('silas');
    }
    expect(String(run.stderr)).toContain('results: 4 passed, 0 failed, 1 not_applicable, 0 errors (5 total)');
  });

  it('reads a refused call, a withheld changed definition and an untouched result as the proxy answered them', () => {
    const byId = new Map(lines.map((l) => [l.case_id, l]));
    const secret = byId.get('own-call-secret')!;
    expect(secret.actual_verdict).toBe('block');
    expect(secret.evidence.steps).toEqual([expect.objectContaining({ tool: 'post_note', outcome: 'blocked', how: 'call_refused', code: -32001, ask: false })]);
    expect(byId.get('own-call-benign')!.actual_verdict).toBe('allow');
    // The baseline session pins the plain definition; the case's definition is then a change the proxy hides.
    const drift = byId.get('own-definition-drift')!;
    expect(drift.evidence.baseline).toEqual({ missing: [], offered: ['lookup'] });
    expect(drift.evidence.tools).toEqual(expect.objectContaining({ missing: ['lookup'] }));
    expect(byId.get('own-response-benign')).toEqual(expect.objectContaining({ actual_verdict: 'allow', score: 'pass' }));
    expect(byId.get('own-websocket')).toEqual(expect.objectContaining({ actual_verdict: 'not_applicable', score: 'not_applicable' }));
    expect(byId.get('own-websocket')!.notes).toMatch(/WebSocket/);
  });

  it('prints the figures in the bench format beside the anchor', () => {
    const figures = String(run.stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; value: number; of?: number; anchor?: number | null });
    const byName = new Map(figures.map((f) => [f.name, f]));
    expect(byName.get('egress.mcp.attacks_blocked')).toEqual(expect.objectContaining({ unit: 'cases', value: 2, of: 2, anchor: 32 }));
    expect(byName.get('egress.mcp.false_positives')).toEqual(expect.objectContaining({ value: 0, of: 1, anchor: 0 }));
    expect(byName.get('egress.mcp_tool.attacks_blocked')).toEqual(expect.objectContaining({ value: 1, of: 1, anchor: 1 }));
    // Carried cases are kept out of the MCP figure, which stays comparable to the anchor.
    expect(byName.get('egress.carried.response_fetch.false_positives')).toEqual(expect.objectContaining({ value: 0, of: 1, anchor: null }));
    expect(byName.get('egress.not_applicable')).toEqual(expect.objectContaining({ value: 1, of: 5 }));
  });
});
