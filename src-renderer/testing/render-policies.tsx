import { act } from '@testing-library/react';
import type { ReactElement } from 'react';
import { VALIDATE_DELAY_MS } from '../lib/cockpit/policies.js';
import { FakeTransport } from './fake-transport.js';
import { POLICY_PATH, PolicyDisk } from './policy-fixtures.js';
import { flush, renderCockpit, type CockpitHarness } from './render-cockpit.js';

export interface PolicyHarness extends CockpitHarness {
  disk: PolicyDisk;
}

/** Lets a chain of transport answers land (open → read → validate → history) and React re-render. */
export async function flushAll(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await flush();
}

/** Waits out the editor's debounce with real timers, then lets the check's answer land. */
export async function afterDebounce(): Promise<void> {
  await act(() => new Promise<void>((resolve) => setTimeout(resolve, VALIDATE_DELAY_MS + 20)));
  await flushAll();
}

/** Renders `ui` against a runtime whose policy library is `disk`; with `open`, that policy is read into the editor first. */
export async function renderPolicies(ui: ReactElement, disk = new PolicyDisk(), open: string | null = POLICY_PATH, options: { withWindow?: boolean } = {}): Promise<PolicyHarness> {
  const transport = disk.serve(new FakeTransport('connected')).handle('approvals.listStanding', () => ({ ok: true, value: { standing: [] } }));
  const harness = renderCockpit(ui, { transport, ...options });
  await flushAll();
  if (open !== null) {
    act(() => harness.cockpit.actions.openPolicy(open));
    await flushAll();
  }
  return { ...harness, disk };
}

/** The person typed `text` into the editor (what CodeMirror's change listener reports). */
export function typeDraft(harness: CockpitHarness, text: string): void {
  act(() => harness.cockpit.actions.editPolicy(text));
}
