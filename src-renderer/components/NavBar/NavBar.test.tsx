import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../testing/fake-transport.js';
import { renderCockpit } from '../../testing/render-cockpit.js';
import { planCard, toolCallCard, toolChangeCard } from '../../testing/review-fixtures.js';
import { NavBar } from './NavBar.js';

afterEach(cleanup);
beforeEach(() => window.history.replaceState(null, '', '/#/stream'));

describe('NavBar', () => {
  it('links every surface by name, in order', () => {
    renderCockpit(<NavBar />, { transport: new FakeTransport() });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual(['Stream', 'Review', 'Activity', 'Servers', 'Policies', 'Alignment', 'Memory', 'ILP']);
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '#/stream',
      '#/review',
      '#/activity',
      '#/servers',
      '#/policies',
      '#/alignment',
      '#/memory',
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

  it('shows the number of pending decisions on the Review link, keeping its name starting with Review', () => {
    const { store } = renderCockpit(<NavBar />, { transport: new FakeTransport() });
    expect(screen.getByRole('link', { name: 'Review' }).textContent).toBe('Review');
    act(() => store.getState().reviewReplaced({ cards: [toolCallCard(1), toolCallCard(2)], paused: false }));
    const review = screen.getByRole('link', { name: 'Review, 2 pending' });
    expect(review.textContent).toBe('Review2');
    expect(screen.getByRole('link', { name: /^Review/ })).toBe(review);
    expect(review.querySelector('.nav__count--dense')).toBeNull();
    act(() => store.getState().reviewReplaced({ cards: [], paused: false }));
    expect(screen.getByRole('link', { name: 'Review' }).textContent).toBe('Review');
  });

  it('raises the count badge when the queue is dense (§0.5.4)', () => {
    const { store } = renderCockpit(<NavBar />, { transport: new FakeTransport() });
    const six = Array.from({ length: 6 }, (_, i) => toolCallCard(i));
    act(() => store.getState().reviewReplaced({ cards: six, paused: false }));
    expect(screen.getByRole('link', { name: 'Review, 6 pending' }).querySelector('.nav__count--dense')).not.toBeNull();
  });

  it('counts every kind of decision, and every kind towards the dense badge', () => {
    const { store } = renderCockpit(<NavBar />, { transport: new FakeTransport() });
    act(() => store.getState().reviewReplaced({ cards: [toolCallCard(1), planCard(2), toolChangeCard(3)], paused: false }));
    expect(screen.getByRole('link', { name: 'Review, 3 pending' }).querySelector('.nav__count--dense')).toBeNull();
    const plans = Array.from({ length: 4 }, (_, i) => planCard(i + 10, { riskLevel: 'high' }));
    act(() => store.getState().reviewReplaced({ cards: [toolCallCard(1), toolChangeCard(3), ...plans], paused: false }));
    expect(screen.getByRole('link', { name: 'Review, 6 pending' }).querySelector('.nav__count--dense')).not.toBeNull();
    act(() => store.getState().decisionSent('tool_change-3'));
    expect(screen.getByRole('link', { name: 'Review, 5 pending' }).querySelector('.nav__count--dense')).toBeNull();
    act(() => store.getState().reviewReplaced({ cards: [toolChangeCard(3)], paused: false }));
    expect(screen.getByRole('link', { name: 'Review, 1 pending' })).toBeTruthy();
  });
});
