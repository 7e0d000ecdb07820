import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src-shared/errors.js';
import { StartFailureReports } from './start-failure-reports.js';

// A process holding only the ask credential floods `servers.reportStartFailure`: the chain keeps a
// bounded number of reports, a repeated report is recorded once, and the latest per server stays.
function reportsWith(now: { t: number }) {
  const appended: { event: string; data: Record<string, unknown> }[] = [];
  const audit = { append: (event: string, data: Record<string, unknown>) => void appended.push({ event, data }) };
  return { appended, reports: new StartFailureReports(audit as never, { perMinute: 5, repeatMs: 60_000 }, () => now.t) };
}

const report = (server: string, reason = 'the OS keyring is not reachable') => ({ server, client: 'claude-desktop', reason, fix: 'unlock it' });
const reporter = { transport: 'local-socket', peer: 'pid 42' };

describe('reported proxy start failures', () => {
  it('records a repeated report once a minute, with who sent it', () => {
    const now = { t: 0 };
    const { appended, reports } = reportsWith(now);
    for (let i = 0; i < 10; i++) reports.record(report('files'), reporter);
    expect(appended).toEqual([{ event: 'mcp.proxy_start_reported', data: { ...report('files'), transport: 'local-socket', peer: 'pid 42' } }]);
    now.t = 61_000;
    reports.record(report('files'), reporter);
    expect(appended).toHaveLength(2);
  });

  it('refuses a flood of distinct reports beyond the budget, and takes reports again once it refills', () => {
    const now = { t: 0 };
    const { appended, reports } = reportsWith(now);
    for (let i = 0; i < 5; i++) reports.record(report(`server-${i}`), reporter);
    expect(() => reports.record(report('server-5'), reporter)).toThrow(expect.objectContaining({ code: ErrorCode.RateLimited, message: expect.stringMatching(/too many start-failure reports.*try again in a minute/) }));
    expect(appended).toHaveLength(5);
    now.t = 12_000;
    reports.record(report('server-5'), reporter);
    expect(appended).toHaveLength(6);
  });

  it('a changed reason for the same server is a new report', () => {
    const now = { t: 0 };
    const { appended, reports } = reportsWith(now);
    reports.record(report('files'), reporter);
    reports.record(report('files', 'the ledger is locked by another process'), reporter);
    expect(appended.map((e) => e.data.reason)).toEqual(['the OS keyring is not reachable', 'the ledger is locked by another process']);
  });
});
