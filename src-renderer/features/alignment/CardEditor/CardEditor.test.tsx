import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AlignmentRuntime, CARD, cardView, FILES } from '../../../testing/alignment-fixtures.js';
import { afterCardDebounce, flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { CARD_EDITOR_LABEL, CardEditor } from './CardEditor.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Alignment card' });
const text = () => within(region()).getByRole('textbox', { name: CARD_EDITOR_LABEL }) as HTMLTextAreaElement;
const save = () => within(region()).getByRole('button', { name: 'Save and sign' }) as HTMLButtonElement;
const type = (value: string) => fireEvent.change(text(), { target: { value } });

describe('CardEditor', () => {
  it('shows the card in force as JSON with where it came from and its signature; nothing to save yet', async () => {
    await renderAlignment(<CardEditor />, new AlignmentRuntime(), FILES);
    expect(JSON.parse(text().value)).toEqual(CARD);
    expect(region().textContent).toContain('Derived from the policy');
    expect(region().textContent).toContain('Signed with the owner key');
    expect(within(region()).getByText('ac-mcp-files-1', { selector: 'dd code' })).toBeTruthy();
    expect(save().disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'No changes to save' })).toBeTruthy();
    expect(within(region()).queryByRole('button', { name: 'Discard changes' })).toBeNull();
  });

  it('shows an edited, unsigned card as such', async () => {
    const runtime = new AlignmentRuntime();
    runtime.cards.set(FILES, cardView({ source: 'edited', signature: 'unsigned' }));
    await renderAlignment(<CardEditor />, runtime, FILES);
    expect(region().textContent).toContain('Edited in the cockpit');
    expect(region().textContent).toContain('Unsigned');
  });

  it('checks the draft as the person types, lists each problem at its JSON path, and keeps Save disabled with the reason', async () => {
    const harness = await renderAlignment(<CardEditor />, new AlignmentRuntime(), FILES);
    type(`${text().value.slice(0, 20)}`);
    expect(within(region()).getByRole('status', { name: 'Card check' }).textContent).toBe('Checking the card…');
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Checking the card…' })).toBeTruthy();
    await afterCardDebounce();
    expect(within(within(region()).getByRole('list', { name: 'Card problems' })).getByRole('listitem').textContent).toBe('Line 1, column 2: not valid JSON (ValueExpected)');

    type(JSON.stringify(CARD, null, 2));
    await afterCardDebounce();
    expect(within(within(region()).getByRole('list', { name: 'Card problems' })).getByRole('listitem').textContent).toBe(
      'card_id: "ac-mcp-files-1" is the id of a card already kept; give the new card a new id (expected a card id not used before)',
    );
    expect(save().disabled).toBe(true);
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Fix the 1 problem first' })).toBeTruthy();
    expect(harness.transport.callsTo('alignment.validateCard')).toHaveLength(2);
  });

  it('saves a valid draft signed and shows the new card in force', async () => {
    const harness = await renderAlignment(<CardEditor />, new AlignmentRuntime(), FILES);
    type(JSON.stringify({ ...CARD, card_id: 'ac-mcp-files-2' }, null, 2));
    await afterCardDebounce();
    expect(within(region()).getByRole('status', { name: 'Card check' }).textContent).toBe('The card validates.');
    expect(save().disabled).toBe(false);
    fireEvent.click(save());
    await flushAll();
    expect(harness.runtime.saved.map((s) => s.agentId)).toEqual([FILES]);
    expect(within(region()).getByText(/^Saved and signed/, { selector: '[role="status"]' }).textContent).toBe('Saved and signed: card ac-mcp-files-2 is now in force.');
    expect(region().textContent).toContain('Edited in the cockpit');
    expect(JSON.parse(text().value).card_id).toBe('ac-mcp-files-2');
    expect(save().disabled).toBe(true);
  });

  it('shows a refused save, keeps the draft, and discards it on request', async () => {
    const harness = await renderAlignment(<CardEditor />, new AlignmentRuntime(), FILES);
    harness.transport.handle('alignment.validateCard', () => ({ ok: true, value: { ok: true, problems: [] } }));
    const draft = JSON.stringify(CARD);
    type(draft);
    await afterCardDebounce();
    fireEvent.click(save());
    await flushAll();
    expect(within(region()).getByRole('alert').textContent).toMatch(/^The card was not saved: the card was not saved; the card in force stays\. card_id:/);
    expect(text().value).toBe(draft);
    fireEvent.click(within(region()).getByRole('button', { name: 'Discard changes' }));
    expect(JSON.parse(text().value)).toEqual(CARD);
    expect(text().value).not.toBe(draft);
    expect(within(region()).queryByRole('alert')).toBeNull();
  });
});
