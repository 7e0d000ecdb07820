import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from './Countdown.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-01-01T12:00:00.000Z') });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Countdown', () => {
  it('counts down every second and says when the request expired', () => {
    render(<Countdown expiresAt="2026-01-01T12:00:03.000Z" expired="Expired — the agent gets a timeout" />);
    const timer = screen.getByRole('timer', { name: 'Time left' });
    expect(timer.textContent).toBe('Expires in 0:03');
    act(() => vi.advanceTimersByTime(1000));
    expect(timer.textContent).toBe('Expires in 0:02');
    act(() => vi.advanceTimersByTime(2000));
    expect(timer.textContent).toBe('Expired — the agent gets a timeout');
    expect(timer.className).toContain('countdown--expired');
  });

  it('stops its timer when unmounted', () => {
    const { unmount } = render(<Countdown expiresAt="2026-01-01T12:05:00.000Z" expired="Expired" />);
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
