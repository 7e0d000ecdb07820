import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { emitStream, renderStream } from '../../../testing/render-stream.js';
import { event, message, opened, OTHER_SCOPE, usage } from '../../../testing/stream-fixtures.js';
import { Conversation } from './Conversation.js';

afterEach(cleanup);

const log = () => screen.getByRole('log', { name: 'Conversation' });
const items = () => within(log()).queryAllByRole('listitem');

describe('Conversation', () => {
  it('invites a first message when nothing was said', async () => {
    await renderStream(<Conversation />);
    expect(log().textContent).toContain('Nothing said yet');
    expect(items()).toHaveLength(0);
  });

  it('shows the history with who said what', async () => {
    await renderStream(
      <Conversation />,
      opened({ history: [message(1, 'person', 'Clean up my downloads'), message(2, 'silas', 'Here is a plan.'), { ...message(3, 'system', 'Plan approved'), taint: 'external' }] }),
    );
    expect(items().map((item) => item.querySelector('.message__sender')?.textContent)).toEqual(['You', 'Silas', 'System']);
    expect(items().map((item) => item.querySelector('.message__text')?.textContent)).toEqual(['Clean up my downloads', 'Here is a plan.', 'Plan approved']);
    expect(within(items()[2]!).getByText('includes outside content')).toBeTruthy();
    expect(within(items()[0]!).queryByText('includes outside content')).toBeNull();
    expect(items()[0]!.querySelector('time')?.getAttribute('datetime')).toBe(message(1).timestamp);
  });

  it('streams the draft as Silas’s provisional answer, busy until the final message replaces it', async () => {
    const harness = await renderStream(<Conversation />);
    emitStream(harness, event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person', 'Hi') }));
    expect(items()).toHaveLength(2);
    expect(items()[1]!.textContent).toContain('working on it…');
    expect(log().getAttribute('aria-busy')).toBeNull();

    emitStream(harness, event('draft', { turn_id: 't1', delta: 'Hel' }), event('draft', { turn_id: 't1', delta: 'lo there' }));
    const draft = items()[1]!;
    expect(draft.getAttribute('aria-busy')).toBe('true');
    expect(draft.textContent).toBe('Silaswriting…Hello there');
    expect(log().getAttribute('aria-busy')).toBe('true');

    emitStream(harness, event('draft_reset', { turn_id: 't1', reason: 'output gate' }));
    expect(items()[1]!.textContent).toContain('working on it…');

    emitStream(harness, event('message', { turn_id: 't1', message: message(2, 'silas', 'Hello there.'), chips: [] }), event('turn_finished', { turn_id: 't1', outcome: 'answered', usage: usage(), error: null }));
    expect(items()).toHaveLength(2);
    expect(items()[1]!.getAttribute('aria-busy')).toBeNull();
    expect(items()[1]!.querySelector('.message__text')?.textContent).toBe('Hello there.');
    expect(log().getAttribute('aria-busy')).toBeNull();
  });

  it('shows nothing of another scope', async () => {
    const harness = await renderStream(<Conversation />);
    emitStream(harness, event('message', { scope: OTHER_SCOPE, turn_id: null, message: message(1, 'silas', 'not yours'), chips: [] }));
    expect(log().textContent).not.toContain('not yours');
  });
});
