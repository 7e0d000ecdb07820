import { describe, expect, it } from 'vitest';
import { isUpstreamToolCall, readAipDecision } from './aip-decision.js';
import { auditDataProblem, auditEvents } from './events.js';

const entry = (data: Record<string, unknown>, event = 'aip.decision') => ({ event, data });

describe('readAipDecision', () => {
  it('reads every field a proxy writes, by its type', () => {
    const data = {
      args: { path: '/tmp/x' },
      client: 'cursor',
      decision: 'ALLOW',
      direction: 'upstream',
      method: 'tools/call',
      policy_hash: 'h',
      policy_mode: 'enforce',
      policy_name: 'workstation',
      reason: 'Approved by the user',
      request_id: 7,
      server: 'files',
      session_id: 's1',
      tool: 'write_file',
      violation: false,
      approval: 'approve',
      approval_nonce: 'n',
      approval_key: 'k',
    };
    // What the reader reads, the catalogue declares: the entry is valid as written.
    expect(auditDataProblem('aip.decision', auditEvents['aip.decision'], data)).toBeNull();
    const record = readAipDecision(entry(data))!;
    expect(record).toMatchObject({ decision: 'ALLOW', direction: 'upstream', tool: 'write_file', server: 'files', sessionId: 's1', client: 'cursor', requestId: 7, policyName: 'workstation', approval: 'approve', approvalNonce: 'n', approvalKey: 'k', standingId: null, dlpRedacted: false, violation: false });
    expect(isUpstreamToolCall(record)).toBe(true);
  });

  it('reads an older entry without the proxy fields, and a field of the wrong type as absent', () => {
    const record = readAipDecision(entry({ direction: 'upstream', decision: 'BLOCK', policy_mode: 'enforce', violation: true, method: 'tools/call', tool: 42, request_id: { no: 1 } }))!;
    expect(record).toMatchObject({ decision: 'BLOCK', violation: true, tool: null, requestId: null, server: null, sessionId: null, approval: null });
    expect(isUpstreamToolCall(record)).toBe(false);
  });

  it('is null for any other event', () => {
    expect(readAipDecision(entry({ decision: 'ALLOW' }, 'runtime.started'))).toBeNull();
  });

  it('the catalogue refuses a proxy field of the wrong kind', () => {
    const base = { direction: 'upstream', decision: 'ASK', policy_mode: 'enforce', violation: false };
    expect(auditDataProblem('aip.decision', auditEvents['aip.decision'], { ...base, approval: 'maybe' })).toMatch(/data\.approval/);
    expect(auditDataProblem('aip.decision', auditEvents['aip.decision'], { ...base, withdrawn: 'client_cancelled', dlp: 'redacted' })).toBeNull();
  });
});
