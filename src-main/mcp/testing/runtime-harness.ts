import { expect } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/envelope.js';
import type { DecisionCard, ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { NotificationRequest, Runtime } from '../../app/types.js';
import { ControlSocketApprover } from '../../control/socket-asker.js';
import type { TestHome } from './proxy-harness.js';
import { startInProcessProxy } from './proxy-harness.js';

/** The cockpit's transport, for dispatching control-plane calls as the cockpit does. */
export const COCKPIT = { transport: 'ipc' as const };

/**
 * The desktop runtime on `home` and a proxy for `server` under `policy` that asks it through the
 * control socket, as a wrapped server does. `closers` gets both, the proxy first.
 */
export async function startRuntimeAndProxy(home: TestHome, policy: string, server: string, closers: { close(): Promise<unknown> }[]) {
  const notified: NotificationRequest[] = [];
  const runtime = await buildRuntime({ home: home.home, mode: 'desktop' }, { secretStore: home.secretStore, logger: silentLogger, notifier: { notify: (n) => notified.push(n) } });
  await runtime.start();
  closers.push({ close: () => runtime.stop('test') });
  const proxy = await startInProcessProxy({ home: home.home, policy, server, approver: new ControlSocketApprover(home.home, 60_000), secretStore: home.secretStore });
  closers.unshift({ close: () => proxy.close() });
  return { runtime, proxy, notified };
}

/** The one card waiting in Review, once it is there, read through the router as the cockpit reads it. */
export async function onlyPendingCard(runtime: Runtime): Promise<DecisionCard> {
  await expect.poll(() => runtime.decisions.pendingCount(), { timeout: 15_000 }).toBe(1);
  const list = (await runtime.router.dispatch('review.list', {}, COCKPIT)) as Envelope<ReviewQueueView>;
  if (!list.ok) throw new Error(list.error.message);
  return list.value.cards[0]!;
}
