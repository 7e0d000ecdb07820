import type { ReactElement } from 'react';
import { createCockpitStore } from '../store/cockpit-store.js';
import { FakeTransport } from './fake-transport.js';
import { MemoryRuntime } from './memory-fixtures.js';
import { flushAll } from './render-alignment.js';
import { renderCockpit, type CockpitHarness } from './render-cockpit.js';

export interface MemoryHarness extends CockpitHarness {
  runtime: MemoryRuntime;
}

/**
 * Renders `ui` against a runtime answering the memory.* calls from `runtime`, with the Memory page
 * as the route (the page reads memory's ledger entries only while it is shown), once its first
 * search and status landed.
 */
export async function renderMemory(ui: ReactElement, runtime = new MemoryRuntime()): Promise<MemoryHarness> {
  const harness = renderCockpit(ui, { transport: runtime.serve(new FakeTransport('connected')), store: createCockpitStore({ route: 'memory' }) });
  await flushAll();
  return { ...harness, runtime };
}
