import { act } from '@testing-library/react';
import type { ReactElement } from 'react';
import type { StreamEvent, StreamOpenResult } from '../../src-shared/schemas/stream.js';
import { FakeTransport } from './fake-transport.js';
import { flush, renderCockpit, type CockpitHarness } from './render-cockpit.js';
import { opened, withStream } from './stream-fixtures.js';

/** Renders `ui` over a connected runtime whose Stream opened `result`, once the scope is open. */
export async function renderStream(ui: ReactElement, result: StreamOpenResult = opened(), transport = new FakeTransport('connected')): Promise<CockpitHarness> {
  const harness = renderCockpit(ui, { transport: withStream(transport, result) });
  await flush();
  return harness;
}

/** Pushes `stream.event`s as the runtime would, re-rendering after each. */
export function emitStream(harness: CockpitHarness, ...events: StreamEvent[]): void {
  for (const event of events) act(() => harness.transport.emit('stream.event', event));
}
