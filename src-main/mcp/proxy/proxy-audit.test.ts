import { describe, expect, it } from 'vitest';
import type { AuditItem } from '../../../src-shared/audit/events.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { PolicyDecision } from '../../aip/evaluate/evaluator.js';
import { ProxyAudit } from './proxy-audit.js';

/**
 * The batching contract of ProxyAudit (DESIGN invariant 3, one commit per chunk): what the
 * proxy forwards or answers never leaves before the entry that allows it is committed, and a
 * message whose entry cannot be recorded has no effect at all. The ledger is a recording fake
 * here, so a failed commit can be staged at any point.
 */
function recordingLog(fail: (items: readonly AuditItem[]) => boolean = () => false) {
  const trace: string[] = [];
  const commits: string[][] = [];
  const log = {
    appendBatch(items: readonly AuditItem[]) {
      const reasons = items.map((item) => (item.data as { reason: string }).reason);
      if (fail(items)) {
        trace.push(`failed ${reasons.join(',')}`);
        throw new Error('disk full');
      }
      commits.push(reasons);
      trace.push(`commit ${reasons.join(',')}`);
      return [];
    },
  } as unknown as AuditLog;
  return { log, trace, commits };
}

function refusal(audit: ProxyAudit, reason: string): void {
  audit.event('mcp.message_refused', { reason, code: -32600 });
}

describe('ProxyAudit batches', () => {
  it('commits every entry of a chunk in one transaction, in order, before any of its effects run', () => {
    const { log, trace, commits } = recordingLog();
    const audit = new ProxyAudit(log, 'srv', 'session');
    const dropped: unknown[] = [];
    audit.batch(() => {
      for (const reason of ['a', 'b', 'c']) {
        audit.message();
        refusal(audit, reason);
        audit.afterCommit(() => trace.push(`effect ${reason}`));
      }
      // Inside the chunk nothing has been written or sent yet.
      expect(trace).toEqual([]);
    }, (error) => dropped.push(error));
    expect(commits).toEqual([['a', 'b', 'c']]);
    expect(trace).toEqual(['commit a,b,c', 'effect a', 'effect b', 'effect c']);
    expect(dropped).toEqual([]);
  });

  it('keeps hundreds of messages of one chunk in order in the single commit', () => {
    const { log, commits } = recordingLog();
    const audit = new ProxyAudit(log, 'srv', 'session');
    const expected: string[] = [];
    audit.batch(() => {
      for (let i = 0; i < 500; i += 1) {
        audit.message();
        refusal(audit, `m${i}`);
        expected.push(`m${i}`);
        if (i % 3 === 0) {
          // A message with two entries, and one with none (a relayed response) in between.
          refusal(audit, `m${i}b`);
          expected.push(`m${i}b`);
          audit.message();
        }
      }
    }, () => undefined);
    expect(commits).toEqual([expected]);
  });

  it('drops only the effects of a message whose entry cannot be recorded, and undoes its bookkeeping', () => {
    // The chunk's commit fails as a whole; retried one message at a time, only "b" still fails.
    const { log, trace } = recordingLog((items) => items.length > 1 || (items[0]!.data as { reason: string }).reason === 'b');
    const audit = new ProxyAudit(log, 'srv', 'session');
    const dropped: unknown[] = [];
    const undone: string[] = [];
    audit.batch(() => {
      for (const reason of ['a', 'b', 'c']) {
        audit.message();
        refusal(audit, reason);
        audit.onDrop(() => undone.push(reason));
        audit.afterCommit(() => trace.push(`effect ${reason}`));
      }
    }, (error) => dropped.push(error));
    expect(trace).toEqual(['failed a,b,c', 'commit a', 'effect a', 'failed b', 'commit c', 'effect c']);
    expect(undone).toEqual(['b']);
    expect(dropped).toHaveLength(1);
  });

  it('runs effects that need no entry without a commit, and a failing effect does not stop the next', () => {
    const { log, trace, commits } = recordingLog();
    const audit = new ProxyAudit(log, 'srv', 'session');
    const dropped: unknown[] = [];
    audit.batch(() => {
      audit.message();
      audit.afterCommit(() => {
        throw new Error('pipe closed');
      });
      audit.message();
      audit.afterCommit(() => trace.push('effect relayed'));
    }, (error) => dropped.push(error));
    expect(commits).toEqual([]);
    expect(trace).toEqual(['effect relayed']);
    expect(dropped).toHaveLength(1);
  });

  it('joins a nested batch to the outer one, and appends at once outside any batch', () => {
    const { log, trace } = recordingLog();
    const audit = new ProxyAudit(log, 'srv', 'session');
    audit.batch(() => {
      audit.message();
      refusal(audit, 'outer');
      audit.batch(() => {
        refusal(audit, 'inner');
        audit.afterCommit(() => trace.push('effect inner'));
      }, () => undefined);
      expect(trace).toEqual([]);
    }, () => undefined);
    refusal(audit, 'alone');
    audit.afterCommit(() => trace.push('effect alone'));
    expect(trace).toEqual(['commit outer,inner', 'effect inner', 'commit alone', 'effect alone']);
  });
});

describe('ProxyAudit decisions', () => {
  const allow: PolicyDecision = { decision: 'ALLOW', violation: false, monitored: false, errorCode: null, error: null, reason: 'Allowed by policy', failedArg: null, failedRule: null, method: 'tools/call', tool: 'echo' };
  const input = { method: 'tools/call', tool: 'echo', args: { message: 'hi' }, requestId: 3 };

  it('names the server and session, with the fields in canonical order when nothing is added', () => {
    const appended: AuditItem[] = [];
    const log = { appendBatch: (items: readonly AuditItem[]) => (appended.push(...items), []) } as unknown as AuditLog;
    const audit = new ProxyAudit(log, 'files', 'session-1');
    audit.decision(allow, input, null, null);
    audit.decision(allow, input, null, null, { approval: 'standing', standing_id: 'g-1', dlp: undefined });
    const [plain, approved] = appended.map((item) => item.data as Record<string, unknown>);
    expect(plain).toMatchObject({ server: 'files', session_id: 'session-1', decision: 'ALLOW', tool: 'echo', request_id: 3 });
    expect(Object.keys(plain!)).toEqual(Object.keys(plain!).sort());
    // Extra fields come after (the ledger sorts them); undefined ones are left out.
    expect(approved).toMatchObject({ server: 'files', approval: 'standing', standing_id: 'g-1' });
    expect(approved).not.toHaveProperty('dlp');
  });
});
