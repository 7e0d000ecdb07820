import type { AuditAppender } from '../../src-shared/audit/events.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { ProxyStartFailureReport } from '../../src-shared/schemas/servers.js';
import { TokenBucket } from './rate-limit.js';

/*
 * Start failures reported by proxies that could not open the ledger (`servers.reportStartFailure`,
 * docs/mcp-proxy.md "Starting under any client"). Any local process holding the ask credential can
 * send one, so the chain must not become its notepad: a report repeating the last one for its
 * server within a minute is already on record (a client retrying a broken server), and beyond a
 * budget per minute reports are refused until it refills. The Servers page shows the latest report
 * per server, so nothing a person needs is lost.
 */

export interface StartFailureReportLimits {
  /** Reports recorded per minute, across servers (also the burst). */
  perMinute: number;
  /** How long an identical report for the same server counts as already recorded. */
  repeatMs: number;
}

const START_FAILURE_REPORT_LIMITS: StartFailureReportLimits = { perMinute: 30, repeatMs: 60_000 };

/** The caller as the control plane knows it, recorded with the report. */
export interface Reporter {
  transport: string;
  peer?: string;
}

export class StartFailureReports {
  private readonly last = new Map<string, { text: string; at: number }>();
  private readonly budget: TokenBucket;

  constructor(
    private readonly audit: AuditAppender,
    private readonly limits: StartFailureReportLimits = START_FAILURE_REPORT_LIMITS,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.budget = new TokenBucket(limits.perMinute, limits.perMinute, now);
  }

  record(report: ProxyStartFailureReport, reporter: Reporter): { recorded: true } {
    const at = this.now();
    const text = JSON.stringify([report.client, report.reason, report.fix]);
    const previous = this.last.get(report.server);
    if (previous && previous.text === text && at - previous.at < this.limits.repeatMs) return { recorded: true };
    if (!this.budget.take()) {
      throw new SilasError(ErrorCode.RateLimited, `too many start-failure reports (more than ${this.limits.perMinute} a minute); the Servers page shows the latest of each server; try again in a minute`);
    }
    this.audit.append('mcp.proxy_start_reported', { ...report, transport: reporter.transport, peer: reporter.peer ?? 'unknown' });
    // One entry per server name; bounded by the budget above, and names are capped at 200 characters.
    if (this.last.size >= 1000) this.last.clear();
    this.last.set(report.server, { text, at });
    return { recorded: true };
  }
}
