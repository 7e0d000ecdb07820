import { homePaths } from '../../home/paths.js';
import { connectToControlCenter } from '../../control/local-socket-client.js';
import type { PlanApprovalAnswer, PlanApprovalRequest, PlanApprover } from './plan-approver.js';

/**
 * `silas run`'s way to the person: `plans.requestApproval` over HOME/control.sock, answered from
 * the cockpit's Review surface. When the control center is not running the answer is
 * `unreachable` at once, naming the fix; it never hangs.
 */
export class ControlSocketPlanApprover implements PlanApprover {
  constructor(private readonly home: string) {}

  async request(request: PlanApprovalRequest, signal?: AbortSignal): Promise<PlanApprovalAnswer> {
    let client;
    try {
      client = await connectToControlCenter(homePaths(this.home).controlFile);
    } catch (error) {
      return { outcome: 'unreachable', reason: `the Silas control center is not running for ${this.home} (${(error as Error).message}); start it with \`silas start\`, or approve on this terminal with --approve-here` };
    }
    const aborted = new Promise<PlanApprovalAnswer>((resolve) => {
      if (signal?.aborted) resolve({ outcome: 'timeout' });
      signal?.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true });
    });
    try {
      const asked = client.call('plans.requestApproval', { item: request.item, planHash: request.planHash, source: request.source, timeoutMs: request.timeoutMs });
      return await Promise.race([asked, aborted]);
    } catch (error) {
      return { outcome: 'unreachable', reason: `the Silas control center did not answer (${(error as Error).message})` };
    } finally {
      client.close();
    }
  }
}

export function planApproverForHome(home: string): PlanApprover {
  return new ControlSocketPlanApprover(home);
}
