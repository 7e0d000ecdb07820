import { act } from '@testing-library/react';
import type { ReactElement } from 'react';
import { FakeTransport } from './fake-transport.js';
import { IlpRuntime } from './ilp-fixtures.js';
import { flushAll } from './render-alignment.js';
import { renderCockpit, type CockpitHarness } from './render-cockpit.js';

export interface IlpHarness extends CockpitHarness {
  runtime: IlpRuntime;
}

/** Renders `ui` against a runtime answering the ilp.* calls from `runtime`; with `select`, that composition is inspected first. */
export async function renderIlp(ui: ReactElement, runtime = new IlpRuntime(), select: string | null = null): Promise<IlpHarness> {
  const harness = renderCockpit(ui, { transport: runtime.serve(new FakeTransport('connected')) });
  await flushAll();
  if (select !== null) {
    act(() => harness.cockpit.actions.selectComposition(select));
    await flushAll();
  }
  return { ...harness, runtime };
}
