import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger } from '../testing/ledger.js';
import { AIP_DECISION_EVENT, aipDecisionData, MAX_AUDITED_ARGS_BYTES, type AipAuditContext } from './audit-record.js';
import type { EvaluationInput, PolicyDecision } from './evaluate/evaluator.js';
import { createPolicyEngine } from './engine.js';
import { loadPolicyText } from './policy/load.js';

const tempDir = useTempDirs();

function setup(spec: string) {
  const loaded = loadPolicyText(`apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: audited\nspec:\n${spec.replace(/^/gm, '  ')}\n`);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const ledger = createTestLedger(tempDir());
  const engine = createPolicyEngine(loaded.policy, { homeDir: tempDir(), cwd: '/' });
  return { policy: loaded.policy, ledger, engine, recorder: { record: (decision: PolicyDecision, input: EvaluationInput, context: AipAuditContext) => ledger.audit.append(AIP_DECISION_EVENT, aipDecisionData(decision, input, context)) } };
}

describe('AIP decisions in the audit chain (§8)', () => {
  it('records the §8 fields plus the policy hash, with arguments redacted by every DLP pattern', () => {
    const { policy, ledger, engine, recorder } = setup(
      'allowed_tools: [http_request]\ndlp:\n  scan_requests: false\n  patterns:\n    - name: "API Key"\n      regex: "sk-[a-zA-Z0-9]{32}"\n      scope: request\n    - name: "SSN"\n      regex: "\\\\d{3}-\\\\d{2}-\\\\d{4}"\n      scope: response',
    );
    const input = { method: 'tools/call', tool: 'http_request', args: { url: 'https://api.example', key: `sk-${'a'.repeat(32)}`, note: 'ssn 123-45-6789' }, requestId: 7 };
    const decision = engine.evaluator.evaluate(input);
    const entry = recorder.record(decision, input, { policy, dlp: engine.dlp, direction: 'upstream', sessionId: 's-1' });
    expect(entry.event).toBe('aip.decision');
    expect(entry.data).toEqual({
      direction: 'upstream',
      method: 'tools/call',
      tool: 'http_request',
      args: { url: 'https://api.example', key: '[REDACTED:API Key]', note: 'ssn [REDACTED:SSN]' },
      decision: 'ALLOW',
      policy_mode: 'enforce',
      violation: false,
      reason: 'Allowed by policy',
      session_id: 's-1',
      policy_name: 'audited',
      policy_hash: policy.hash,
      request_id: 7,
    });
    expect(ledger.audit.verifyChain().valid).toBe(true);
    expect(JSON.stringify(ledger.audit.tail(5))).not.toContain('aaaaaaaaaaaaaaaa');
  });

  it('records violations with their failing argument and rule, and monitor-mode forwards as ALLOW_MONITOR', () => {
    const enforce = setup('tool_rules:\n  - tool: fetch\n    allow_args:\n      url: "^https://"');
    const input = { method: 'tools/call', tool: 'fetch', args: { url: 'http://x' } };
    const blocked = enforce.recorder.record(enforce.engine.evaluator.evaluate(input), input, { policy: enforce.policy, dlp: null, direction: 'upstream' });
    expect(blocked.data).toMatchObject({ decision: 'BLOCK', violation: true, failed_arg: 'url', failed_rule: '^https://', error_code: -32001 });

    const monitor = setup('mode: monitor\nallowed_tools: [a]');
    const other = { method: 'tools/call', tool: 'b', args: {} };
    const forwarded = monitor.recorder.record(monitor.engine.evaluator.evaluate(other), other, { policy: monitor.policy, dlp: null, direction: 'upstream' });
    expect(forwarded.data).toMatchObject({ decision: 'ALLOW_MONITOR', policy_mode: 'monitor', violation: true });
  });

  it('sets every field in canonical key order (so the ledger need not sort them) and names the server when given', () => {
    const { policy, engine } = setup('tool_rules:\n  - tool: fetch\n    allow_args:\n      url: "^https://"');
    const input = { method: 'tools/call', tool: 'fetch', args: { url: 'http://x' }, requestId: 'r-1' };
    const decision = engine.evaluator.evaluate(input);
    const data = aipDecisionData(decision, input, { policy, dlp: engine.dlp, direction: 'upstream', sessionId: 's-1', server: 'files' });
    const keys = Object.keys(data);
    expect(keys).toEqual(['args', 'decision', 'direction', 'error_code', 'failed_arg', 'failed_rule', 'method', 'policy_hash', 'policy_mode', 'policy_name', 'reason', 'request_id', 'server', 'session_id', 'tool', 'violation']);
    // In the order RFC 8785 sorts them: UTF-16 code units, as the default sort compares.
    expect(keys).toEqual([...keys].sort());
    expect(data).toMatchObject({ server: 'files', session_id: 's-1', decision: 'BLOCK', failed_arg: 'url' });
    // The agent client a proxy was started for takes its place in that order too.
    const withClient = Object.keys(aipDecisionData(decision, input, { policy, dlp: engine.dlp, direction: 'upstream', sessionId: 's-1', server: 'files', client: 'cursor' }));
    expect(withClient).toEqual(['args', 'client', ...keys.slice(1)]);
    expect(withClient).toEqual([...withClient].sort());
  });

  it('records huge arguments by digest only', () => {
    const { policy, engine, recorder } = setup('allowed_tools: [w]');
    const input = { method: 'tools/call', tool: 'w', args: { content: 'x'.repeat(MAX_AUDITED_ARGS_BYTES * 2) } };
    const entry = recorder.record(engine.evaluator.evaluate(input), input, { policy, dlp: engine.dlp, direction: 'upstream' });
    expect(entry.data.args).toEqual({ truncated: true, bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});
