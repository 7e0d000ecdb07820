import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../test/fake-transport.js';
import { renderCockpit } from '../../test/render-cockpit.js';
import { NavBar } from './NavBar.js';

afterEach(cleanup);
beforeEach(() => window.history.replaceState(null, '', '/#/stream'));

describe('NavBar', () => {
  it('links every surface by name, in order', () => {
    renderCockpit(<NavBar />, { transport: new FakeTransport() });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual(['Stream', 'Review', 'Activity', 'Servers', 'Policies', 'Alignment', 'ILP']);
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '#/stream',
      '#/review',
      '#/activity',
      '#/servers',
      '#/policies',
      '#/alignment',
      '#/ilp',
    ]);
  });

  it('marks the current page and navigates on click', () => {
    const { store } = renderCockpit(<NavBar />, { transport: new FakeTransport(), withWindow: true });
    expect(screen.getByRole('link', { name: 'Stream' }).getAttribute('aria-current')).toBe('page');
    fireEvent.click(screen.getByRole('link', { name: 'Alignment' }));
    expect(store.getState().navigation.route).toBe('alignment');
    expect(window.location.hash).toBe('#/alignment');
    expect(screen.getByRole('link', { name: 'Alignment' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('link', { name: 'Stream' }).getAttribute('aria-current')).toBeNull();
  });

  it('leaves modified clicks to the browser', () => {
    const { store } = renderCockpit(<NavBar />, { transport: new FakeTransport(), withWindow: true });
    fireEvent.click(screen.getByRole('link', { name: 'ILP' }), { ctrlKey: true });
    expect(store.getState().navigation.route).toBe('stream');
  });
});
