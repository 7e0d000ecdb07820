import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AlignmentRuntime, CARD, FILES, SILAS } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { AlignmentPage } from '../AlignmentPage/AlignmentPage.js';

afterEach(cleanup);

const cardText = () => within(screen.getByRole('region', { name: 'Alignment card' })).getByRole('textbox', { name: 'Card JSON' }) as HTMLTextAreaElement;
const dialog = () => screen.getByRole('alertdialog', { name: 'Unsaved card' });
const EDITED = JSON.stringify({ ...CARD, card_id: 'ac-mine' }, null, 2);

describe('CardDiscard', () => {
  it('asks before another agent replaces an unsaved card draft; "Keep editing" keeps it', async () => {
    const harness = await renderAlignment(<AlignmentPage />, new AlignmentRuntime(), FILES);
    fireEvent.change(cardText(), { target: { value: EDITED } });
    act(() => harness.cockpit.actions.showAgent(SILAS));
    await flushAll();
    expect(within(dialog()).getByText(`Your changes to the card of ${FILES} are not saved. Discard them and show ${SILAS}?`)).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog()).getByRole('button', { name: 'Keep editing' }));
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Keep editing' }));
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.store.getState().alignment.selected).toBe(FILES);
    expect(cardText().value).toBe(EDITED);
  });

  it('shows the other agent once the person discards the draft, and asks nothing when there is no draft', async () => {
    const harness = await renderAlignment(<AlignmentPage />, new AlignmentRuntime(), FILES);
    fireEvent.change(cardText(), { target: { value: EDITED } });
    act(() => harness.cockpit.actions.showAgent(SILAS));
    await flushAll();
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Discard changes' }));
    await flushAll();
    expect(harness.store.getState().alignment.selected).toBe(SILAS);
    act(() => harness.cockpit.actions.showAgent(FILES));
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.store.getState().alignment.selected).toBe(FILES);
  });
});
