import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AlignmentRuntime, FILES, SILAS, violation } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { ViolationList } from './ViolationList.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Violations' });

describe('ViolationList', () => {
  it('lists the newest violations with their action and types, and opens one in the trace inspector', async () => {
    const runtime = new AlignmentRuntime();
    runtime.violations.set(FILES, [
      violation('tr-9', { actionName: 'delete_file', violations: ['FORBIDDEN_ACTION', 'MISSED_ESCALATION'] }),
      violation('tr-4', { actionName: 'write_file', violations: ['UNBOUNDED_ACTION'] }),
    ]);
    const harness = await renderAlignment(<ViolationList />, runtime, FILES);
    const items = within(within(region()).getByRole('list', { name: 'Recent violations' })).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('delete_file');
    expect(within(items[0]!).getByText('FORBIDDEN_ACTION')).toBeTruthy();
    expect(within(items[0]!).getByText('MISSED_ESCALATION')).toBeTruthy();
    expect(items[1]!.textContent).toContain('UNBOUNDED_ACTION');

    fireEvent.click(within(region()).getByRole('button', { name: 'Inspect trace tr-4' }));
    await flushAll();
    expect(harness.transport.callsTo('alignment.trace')).toEqual([{ traceId: 'tr-4' }]);
    expect(items[1]!.getAttribute('aria-current')).toBe('true');
    expect(items[0]!.hasAttribute('aria-current')).toBe(false);
  });

  it('says when every trace kept to the card', async () => {
    await renderAlignment(<ViolationList />, new AlignmentRuntime(), SILAS);
    expect(within(region()).getByText('No violations: every trace kept to the card.')).toBeTruthy();
    expect(within(region()).queryByRole('list')).toBeNull();
  });

  it('says that only the newest are listed when the list is full', async () => {
    const runtime = new AlignmentRuntime();
    runtime.violations.set(FILES, Array.from({ length: 50 }, (_, i) => violation(`tr-${i}`)));
    await renderAlignment(<ViolationList />, runtime, FILES);
    expect(within(region()).getByText('The newest 50, newest first.')).toBeTruthy();
  });
});
