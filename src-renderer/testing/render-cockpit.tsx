import { act, render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { CockpitProvider } from '../app/cockpit-context.js';
import { connectCockpit, type Cockpit } from '../lib/cockpit/connect.js';
import { createCockpitStore, type CockpitStore } from '../store/cockpit-store.js';
import { auditRange } from './audit-fixtures.js';
import { FakeTransport, runtimeInfo, settle } from './fake-transport.js';
import { opened } from './stream-fixtures.js';

export interface CockpitHarness extends RenderResult {
  store: CockpitStore;
  transport: FakeTransport;
  cockpit: Cockpit;
}

/** A runtime with `total` audit entries (indexes 0..total-1) and an empty Review queue, answering like the real router. */
export function fakeRuntime(total = 20, verification = { valid: true, checkpoints: 0, firstInvalid: null }): FakeTransport {
  return new FakeTransport()
    .handle('review.list', () => ({ ok: true, value: { cards: [], paused: false } }))
    .handle('runtime.info', () => ({ ok: true, value: runtimeInfo }))
    .handle('approvals.listStanding', () => ({ ok: true, value: { standing: [] } }))
    .handle('clients.list', () => ({ ok: true, value: { clients: [] } }))
    .handle('stream.open', () => ({ ok: true, value: opened() }))
    .handle('audit.list', (args) => {
      const { before, limit } = args as { before?: number; limit: number };
      const newest = Math.min(total, before ?? total) - 1;
      const entries = newest < 0 ? [] : auditRange(Math.max(0, newest - limit + 1), newest);
      return { ok: true, value: { entries, total, head: null } };
    })
    .handle('audit.verify', () => ({
      ok: true,
      value: { ...verification, entries: total, verifiedAt: '2026-01-01T12:00:00.000Z' },
    }));
}

/** Renders `ui` against a real store and cockpit wiring over a fake transport. */
export function renderCockpit(
  ui: ReactElement,
  options: { transport?: FakeTransport; store?: CockpitStore; withWindow?: boolean } = {},
): CockpitHarness {
  const transport = options.transport ?? fakeRuntime();
  const store = options.store ?? createCockpitStore();
  const cockpit = connectCockpit({ transport, store, ...(options.withWindow ? { window } : {}) });
  const result = render(
    <CockpitProvider store={store} actions={cockpit.actions}>
      {ui}
    </CockpitProvider>,
  );
  return { ...result, store, transport, cockpit };
}

/** Lets transport answers land and React re-render. */
export async function flush(): Promise<void> {
  await act(async () => {
    await settle();
  });
}
