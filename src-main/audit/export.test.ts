import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { aipError } from '../aip/evaluate/errors.js';
import { PolicyEvaluator, resolveAsk, type EvaluationInput } from '../aip/evaluate/evaluator.js';
import { loaded, policyText } from '../aip/policy/testing/policy.js';
import { openHome } from '../app/home.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { refused } from '../mcp/proxy/context.js';
import { ProxyAudit } from '../mcp/proxy/proxy-audit.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import type { AuditLog } from './audit-log.js';
import { AipJsonlExport } from './export.js';

const tempDir = useTempDirs('silas-export-');

/** A real home's audit log, with its keys in an in-memory keyring. */
function testLedger() {
  const ledger = openHome(join(tempDir(), 'home'), { create: true, keys: 'signer', secretStore: new MemorySecretStore() });
  onTestFinished(() => ledger.close());
  return ledger;
}

/** Spec 001 §8.1: the only decisions an AIP audit record may carry. */
const SECTION_8_1_DECISIONS = ['ALLOW', 'BLOCK', 'ALLOW_MONITOR', 'RATE_LIMITED'];

const policy = loaded(policyText('  allowed_tools: [read_file]\n  tool_rules:\n    - tool: write_file\n      action: ask\n'));
const evaluator = new PolicyEvaluator(policy);

function call(id: number, path: string): EvaluationInput {
  return { method: 'tools/call', tool: 'write_file', args: { path }, requestId: id };
}

/** What the proxy writes for `action: ask` calls (ask.ts): the ASK, then the person's answer. */
function writeAskHistory(log: AuditLog): void {
  const main = new ProxyAudit(log, 'files', 'session-main');
  const other = new ProxyAudit(log, 'other', 'session-other');
  const ask = (audit: ProxyAudit, input: EvaluationInput) => {
    const decision = evaluator.evaluate(input);
    expect(decision.decision).toBe('ASK');
    audit.decision(decision, input, policy, null);
    return decision;
  };
  ask(other, call(1, '/w/other.txt')); // same request id in another session: must not be resolved by session-main's answer
  const approvedAsk = ask(main, call(1, '/w/approved.txt'));
  const deniedAsk = ask(main, call(2, '/w/denied.txt'));
  main.decision(resolveAsk(approvedAsk, 'approve'), call(1, '/w/approved.txt'), policy, null, { approval: 'approve', approval_nonce: 'n1', approval_key: 'k' });
  const blocked = { method: 'tools/call', tool: 'delete_file', args: { path: '/etc/passwd' }, requestId: 5 };
  main.decision(evaluator.evaluate(blocked), blocked, policy, null);
  main.decision(refused(deniedAsk, aipError('UserDenied', { tool: 'write_file', reason: 'The user denied the request' })), call(2, '/w/denied.txt'), policy, null, { approval: 'deny' });
  other.event('mcp.proxy_stopped', { reason: 'the MCP server exited with code 0', exit_code: 0, failed_pending: 1 });
  ask(main, call(4, '/w/pending.txt'));
}

function exportAll(entries: Iterable<AuditEntry>): Record<string, unknown>[] {
  const exporter = new AipJsonlExport();
  const lines: string[] = [];
  for (const entry of entries) lines.push(...exporter.lines(entry));
  lines.push(...exporter.end());
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('aip-jsonl export of action: ask (spec 001 §8.1 has no ASK decision)', () => {
  it('writes each ask as the decision that followed it, never as ASK', () => {
    const ledger = testLedger();
    writeAskHistory(ledger.audit);
    const entries = [...ledger.audit.since()];
    const ts = (event: string, requestId?: number, decision?: string) =>
      entries.find((e) => e.event === event && (requestId === undefined || e.data.request_id === requestId) && (decision === undefined || e.data.decision === decision) && e.data.server !== 'other')!.ts;
    const stoppedTs = entries.find((e) => e.event === 'mcp.proxy_stopped')!.ts;
    const base = { direction: 'upstream', method: 'tools/call', tool: 'write_file', policy_mode: 'enforce' };

    const records = exportAll(entries);

    expect(records).toEqual([
      { timestamp: ts('aip.decision', 1, 'ALLOW'), ...base, args: { path: '/w/approved.txt' }, decision: 'ALLOW', violation: false, session_id: 'session-main', policy_hash: policy.hash },
      { timestamp: ts('aip.decision', 5), direction: 'upstream', method: 'tools/call', tool: 'delete_file', args: { path: '/etc/passwd' }, decision: 'BLOCK', policy_mode: 'enforce', violation: true, session_id: 'session-main', policy_hash: policy.hash },
      { timestamp: ts('aip.decision', 2, 'BLOCK'), ...base, args: { path: '/w/denied.txt' }, decision: 'BLOCK', violation: true, session_id: 'session-main', policy_hash: policy.hash },
      // The proxy stopped with this ask open: the call was refused when it stopped.
      { timestamp: stoppedTs, ...base, args: { path: '/w/other.txt' }, decision: 'BLOCK', violation: true, session_id: 'session-other', policy_hash: policy.hash },
      // Still unanswered when exported: not forwarded, so BLOCK, at the time it was asked.
      { timestamp: ts('aip.decision', 4, 'ASK'), ...base, args: { path: '/w/pending.txt' }, decision: 'BLOCK', violation: true, session_id: 'session-main', policy_hash: policy.hash },
    ]);
    for (const record of records) {
      expect(SECTION_8_1_DECISIONS).toContain(record.decision);
      expect(Object.keys(record).slice(0, 2)).toEqual(['timestamp', 'direction']);
    }
  });

  it('silas audit export --format aip-jsonl prints no ASK and only §8 fields', async () => {
    const home = join(tempDir(), 'home');
    const store = new MemorySecretStore();
    expect((await runSilas(['init', '--home', home], { secretStore: store })).code).toBe(0);
    const ledger = openHome(home, { create: false, keys: 'verify', secretStore: store });
    try {
      writeAskHistory(ledger.audit);
    } finally {
      ledger.close();
    }
    const result = await runSilas(['audit', 'export', '--format', 'aip-jsonl', '--home', home], { secretStore: store });
    expect(result.code).toBe(0);
    const records = result.out.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.decision, (r.args as { path: string }).path])).toEqual([
      ['ALLOW', '/w/approved.txt'],
      ['BLOCK', '/etc/passwd'],
      ['BLOCK', '/w/denied.txt'],
      ['BLOCK', '/w/other.txt'],
      ['BLOCK', '/w/pending.txt'],
    ]);
    const section8 = new Set(['timestamp', 'direction', 'method', 'tool', 'args', 'decision', 'policy_mode', 'violation', 'failed_arg', 'failed_rule', 'session_id', 'token_id', 'policy_hash']);
    for (const record of records) for (const key of Object.keys(record)) expect(section8).toContain(key);
  });

  it('refuses a decision §8.1 does not list instead of exporting it, naming the entry and the way out', () => {
    const ledger = testLedger();
    const entry = ledger.audit.append('aip.decision', { direction: 'upstream', method: 'tools/call', tool: 't', decision: 'MAYBE', policy_mode: 'enforce', violation: false });
    expect(() => new AipJsonlExport().lines(entry)).toThrow(`audit entry #${entry.index} has decision "MAYBE", which spec 001 §8.1 does not list`);
    expect(() => new AipJsonlExport().lines(entry)).toThrow('--format jsonl');
  });

  it('leaves entries that are not AIP decisions out', () => {
    const ledger = testLedger();
    const note = ledger.audit.append('aip.dlp', { server: 'files', session_id: 's1', direction: 'upstream', source: 'args', rules: [], decision: 'ALLOW' });
    const exporter = new AipJsonlExport();
    expect([...exporter.lines(note), ...exporter.end()]).toEqual([]);
  });
});
