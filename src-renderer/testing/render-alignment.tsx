import { act } from '@testing-library/react';
import type { ReactElement } from 'react';
import { CARD_VALIDATE_DELAY_MS } from '../lib/cockpit/alignment.js';
import { AlignmentRuntime } from './alignment-fixtures.js';
import { FakeTransport } from './fake-transport.js';
import { flush, renderCockpit, type CockpitHarness } from './render-cockpit.js';

export interface AlignmentHarness extends CockpitHarness {
  runtime: AlignmentRuntime;
}

/** Lets a chain of transport answers land and React re-render. */
export async function flushAll(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await flush();
}

/** Waits out the card editor's debounce with real timers, then lets the check's answer land. */
export async function afterCardDebounce(): Promise<void> {
  await act(() => new Promise<void>((resolve) => setTimeout(resolve, CARD_VALIDATE_DELAY_MS + 20)));
  await flushAll();
}

/** Renders `ui` against a runtime answering the alignment.* calls from `runtime`; with `show`, that agent is shown first. */
export async function renderAlignment(ui: ReactElement, runtime = new AlignmentRuntime(), show: string | null = null): Promise<AlignmentHarness> {
  const harness = renderCockpit(ui, { transport: runtime.serve(new FakeTransport('connected')) });
  await flushAll();
  if (show !== null) {
    act(() => harness.cockpit.actions.showAgent(show));
    await flushAll();
  }
  return { ...harness, runtime };
}
