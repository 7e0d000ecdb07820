import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TaintBadge, taintBadgeText } from './TaintBadge.js';

afterEach(cleanup);

describe('TaintBadge', () => {
  it('marks external text as from outside, and says whose the rest is', () => {
    expect(taintBadgeText('external')).toBe('from outside');
    expect(taintBadgeText('auth')).toBe('from your session');
    expect(taintBadgeText('owner')).toBe('from you, signed');
  });

  it('explains itself on hover and carries its taint as a class', () => {
    render(<TaintBadge taint="external" />);
    const badge = screen.getByText('from outside');
    expect(badge.getAttribute('title')).toBe('Came from a tool, a web page or another person, not from you');
    expect(badge.className).toBe('taint-badge taint-badge--external');
  });
});
