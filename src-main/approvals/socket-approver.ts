import type { JsonValue } from '../../src-shared/schemas/json.js';
import { homePaths } from '../home/paths.js';
import { connectToControlCenter, type LocalSocketClient } from '../control/local-socket-client.js';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../mcp/proxy/approver.js';

/**
 * Asks the human through the running control center: the proxy's side of `approvals.request`
 * over HOME/control.sock. Any failure to reach it answers `unreachable` at once with the
 * reason, so the proxy fails closed with -32005 and never hangs (DESIGN invariant 4).
 */
export class ControlSocketApprover implements Approver {
  private client: Promise<LocalSocketClient> | null = null;

  constructor(
    private readonly home: string,
    private readonly timeoutMs: number,
  ) {}

  private connect(): Promise<LocalSocketClient> {
    this.client ??= connectToControlCenter(homePaths(this.home).controlFile);
    return this.client;
  }

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    let client: LocalSocketClient;
    try {
      client = await this.connect();
    } catch (error) {
      this.client = null;
      return { outcome: 'unreachable', reason: `the Silas control center is not reachable (${(error as Error).message}); start it with \`silas start\`` };
    }
    const asked = client.call('approvals.request', {
      server: req.server,
      tool: req.tool,
      args: asJson(req.args),
      display: asJson(req.display),
      requestId: req.requestId,
      sessionId: req.sessionId,
      rule: req.rule.slice(0, 500),
      reason: req.reason.slice(0, 1000),
      policyName: req.policyName.slice(0, 200),
      timeoutMs: Math.max(1000, Math.min(this.timeoutMs, 3_600_000)),
    });
    const aborted = new Promise<ApprovalAnswer>((resolve) => {
      if (signal.aborted) resolve({ outcome: 'timeout' });
      signal.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true });
    });
    try {
      return await Promise.race([asked, aborted]);
    } catch (error) {
      this.client = null;
      return { outcome: 'unreachable', reason: `the Silas control center stopped answering (${(error as Error).message})` };
    }
  }

  close(): void {
    void this.client?.then((c) => c.close()).catch(() => undefined);
    this.client = null;
  }
}

function asJson(value: unknown): JsonValue {
  return (JSON.parse(JSON.stringify(value ?? null)) ?? null) as JsonValue;
}
