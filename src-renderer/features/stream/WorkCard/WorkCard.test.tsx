import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderCockpit } from '../../../testing/render-cockpit.js';
import { workEvent } from '../../../testing/stream-fixtures.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import type { StreamWork } from '../../../store/stream-reducer.js';
import { WorkCard } from './WorkCard.js';

afterEach(cleanup);

function item(overrides: Parameters<typeof workEvent>[1] = {}): StreamWork {
  const { type: _type, scope: _scope, ...work } = workEvent('w1', overrides);
  return work;
}

describe('WorkCard', () => {
  it('shows a plan awaiting approval with its status in words, its detail, its hash and the way to Review', () => {
    const { store } = renderCockpit(<WorkCard item={item({ title: 'Archive old invoices', detail: 'Moves 42 files to ~/Archive.' })} />, { transport: new FakeTransport() });
    const card = screen.getByRole('article', { name: 'Archive old invoices' });
    expect(within(card).getByText('awaiting approval')).toBeTruthy();
    expect(within(card).getByText('Moves 42 files to ~/Archive.')).toBeTruthy();
    expect(card.textContent).toContain('Plan 1a2b3c4d');
    const link = within(card).getByRole('link', { name: 'Open in Review' });
    expect(link.getAttribute('href')).toBe('#/review');
    fireEvent.click(link);
    expect(store.getState().navigation.route).toBe('review');
  });

  it('leaves a modified click to the browser', () => {
    const { store } = renderCockpit(<WorkCard item={item()} />, { transport: new FakeTransport() });
    fireEvent.click(screen.getByRole('link', { name: 'Open in Review' }), { ctrlKey: true });
    expect(store.getState().navigation.route).toBe('stream');
  });

  it.each([
    ['approved', 'approved'],
    ['running', 'running'],
    ['verification_failed', 'verification failed'],
    ['done', 'done'],
    ['blocked', 'blocked'],
    ['failed', 'failed'],
    ['declined', 'declined'],
    ['stuck', 'stuck'],
  ] as const)('says %s in words and offers no Review link', (status, words) => {
    renderCockpit(<WorkCard item={item({ status, detail: '', plan_hash: null })} />, { transport: new FakeTransport() });
    const card = screen.getByRole('article', { name: 'Plan w1' });
    expect(card.querySelector('.work-status')?.textContent).toBe(words);
    expect(within(card).queryByRole('link')).toBeNull();
    expect(card.textContent).not.toContain('Plan 1a2b');
  });

  it('marks a detail the executor wrote after reading tool output as external', () => {
    renderCockpit(<WorkCard item={item({ title: 'Tidy', status: 'done', detail: 'moved 3 files', detail_taint: 'external' })} />, { transport: new FakeTransport() });
    const card = screen.getByRole('article', { name: 'Tidy' });
    expect(card.textContent).toContain('moved 3 files (written by the executor after reading tool output (external))');
  });
});
