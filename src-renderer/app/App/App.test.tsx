import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stubLayout } from '../../testing/layout.js';
import { FakeTransport } from '../../testing/fake-transport.js';
import { fakeRuntime, flush, renderCockpit } from '../../testing/render-cockpit.js';
import { planCard, toolCallCard } from '../../testing/review-fixtures.js';
import { workEvent } from '../../testing/stream-fixtures.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { App } from './App.js';

let restoreLayout: () => void;
beforeEach(() => {
  window.history.replaceState(null, '', '/#/stream');
  restoreLayout = stubLayout();
});
afterEach(() => {
  cleanup();
  restoreLayout();
});

const heading = () => screen.getByRole('heading', { level: 1 }).textContent;

describe('App', () => {
  it('opens on Stream and switches pages from the main navigation', async () => {
    const transport = fakeRuntime(3);
    transport.state = 'connected';
    renderCockpit(<App />, { transport, withWindow: true });
    await flush();
    expect(heading()).toBe('Stream');
    expect(screen.getByRole('log', { name: 'Conversation' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Message to Silas' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    for (const name of ['Review', 'Servers', 'Policies', 'Alignment', 'Memory', 'ILP', 'Activity', 'Stream']) {
      fireEvent.click(within(nav).getByRole('link', { name }));
      expect(heading()).toBe(name);
      expect(document.title).toBe(`${name} · Silas Control Center`);
    }
    fireEvent.click(within(nav).getByRole('link', { name: 'Activity' }));
    expect(screen.getByRole('list', { name: 'Audit log' })).toBeTruthy();
    expect(window.location.hash).toBe('#/activity');
  });

  it('counts pending decisions in the navigation and shows the oldest on Review', async () => {
    const transport = fakeRuntime(3).handle('review.list', () => ({ ok: true, value: { cards: [planCard(2), toolCallCard(1)], paused: false } }));
    transport.state = 'connected';
    renderCockpit(<App />, { transport, withWindow: true });
    await flush();
    fireEvent.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Review, 2 pending' }));
    expect(heading()).toBe('Review');
    expect(screen.getByRole('article', { name: 'Approval request: read_file_1 on filesystem' })).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Up next' })).getAllByRole('listitem')).toHaveLength(1);
  });

  it('leads from a plan waiting in the Stream to Review', async () => {
    const transport = fakeRuntime(3);
    transport.state = 'connected';
    renderCockpit(<App />, { transport, withWindow: true });
    await flush();
    act(() => transport.emit('stream.event', workEvent('w1', { title: 'Archive invoices' })));
    const card = screen.getByRole('article', { name: 'Archive invoices' });
    fireEvent.click(within(card).getByRole('link', { name: 'Open in Review' }));
    expect(heading()).toBe('Review');
    expect(window.location.hash).toBe('#/review');
  });

  it('follows the back button through hash changes', () => {
    renderCockpit(<App />, { transport: new FakeTransport(), withWindow: true });
    act(() => {
      window.history.replaceState(null, '', '/#/ilp');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    expect(heading()).toBe('ILP');
  });

  it('opens on the route in the address bar', () => {
    renderCockpit(<App />, { transport: new FakeTransport(), store: createCockpitStore({ route: 'review' }) });
    expect(heading()).toBe('Review');
  });

  it('shows the connection and the runtime in the header', async () => {
    const transport = fakeRuntime(3);
    renderCockpit(<App />, { transport });
    const connection = screen.getByRole('status', { name: 'Connection' });
    expect(connection.textContent).toBe('Connecting…');
    act(() => transport.setState('connected'));
    await flush();
    expect(connection.textContent).toBe('Connected');
    expect(screen.getByLabelText('Runtime').textContent).toContain('/home/ada/.silas');
  });

  it('explains a missing token', () => {
    renderCockpit(<App />, { transport: new FakeTransport('no-token') });
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toBe('No token');
    expect(screen.getByRole('alert').textContent).toContain('silas start');
  });
});
