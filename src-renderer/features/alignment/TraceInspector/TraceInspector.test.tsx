import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AlignmentRuntime, FILES, traceView } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { TraceInspector } from './TraceInspector.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Trace inspector' });

async function inspecting(traceId: string, runtime = new AlignmentRuntime()) {
  const harness = await renderAlignment(<TraceInspector />, runtime, FILES);
  act(() => harness.cockpit.actions.inspectTrace(traceId));
  expect(within(region()).getByText('Loading the trace…')).toBeTruthy();
  await flushAll();
  return harness;
}

describe('TraceInspector', () => {
  it('invites the person to pick a trace until one is opened', async () => {
    await renderAlignment(<TraceInspector />, new AlignmentRuntime(), FILES);
    expect(within(region()).getByText(/Choose a violation or a drift alert/)).toBeTruthy();
  });

  it('shows each check with its outcome and detail, the signature, the chain, the entries, the trace and its card', async () => {
    await inspecting('tr-3');
    expect(within(region()).getByText('tr-3')).toBeTruthy();
    const checks = within(within(region()).getByRole('list', { name: 'Checks' })).getAllByRole('listitem');
    expect(checks.map((c) => c.textContent)).toEqual([
      'Card reference Passed passed',
      'Forbidden Failed delete_file is a forbidden action',
      'Behavioral similarity Passed similarity 0.6123 to the card',
    ]);
    expect(region().textContent).toContain('Signed with the owner key');
    expect(region().textContent).toContain('Matches the chain entry');
    expect(region().textContent).toContain('Trace in entry #42, decision in entry #41');
    const [trace, card] = region().querySelectorAll('pre');
    expect(JSON.parse(trace!.textContent!)).toEqual(traceView('tr-3').trace);
    expect(JSON.parse(card!.textContent!)).toMatchObject({ card_id: 'ac-mcp-files-1' });
  });

  it('says when the signature does not verify or the stored trace differs from the chain', async () => {
    const runtime = new AlignmentRuntime();
    const harness = await renderAlignment(<TraceInspector />, runtime, FILES);
    harness.transport.handle('alignment.trace', () => ({ ok: true, value: traceView('tr-3', { signature: 'invalid', matchesChain: false }) }));
    act(() => harness.cockpit.actions.inspectTrace('tr-3'));
    await flushAll();
    expect(region().textContent).toContain('Signature does not verify');
    expect(region().textContent).toContain('Differs from what the chain entry holds');
  });

  it('says why a trace could not be loaded, and closes', async () => {
    const runtime = new AlignmentRuntime();
    const harness = await renderAlignment(<TraceInspector />, runtime, FILES);
    harness.transport.handle('alignment.trace', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no AP-Trace "tr-x"' } }));
    act(() => harness.cockpit.actions.inspectTrace('tr-x'));
    await flushAll();
    expect(within(region()).getByRole('alert').textContent).toBe('Could not load the trace: no AP-Trace "tr-x" (E_NOT_FOUND)');
    fireEvent.click(within(region()).getByRole('button', { name: 'Close the trace' }));
    expect(within(region()).getByText(/Choose a violation or a drift alert/)).toBeTruthy();
    expect(within(region()).queryByRole('alert')).toBeNull();
  });
});
