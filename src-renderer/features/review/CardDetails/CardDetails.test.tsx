import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CardDetails } from './CardDetails.js';

afterEach(cleanup);

describe('CardDetails', () => {
  it('renders its content only while open, and the button says whether it is', () => {
    render(
      <CardDetails initiallyOpen={false}>
        <p>the arguments</p>
      </CardDetails>,
    );
    const toggle = screen.getByRole('button', { name: 'Details' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByText('the arguments')).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('the arguments')).toBeTruthy();
    expect(document.getElementById(toggle.getAttribute('aria-controls')!)!.textContent).toBe('the arguments');
  });

  it('starts open when asked (high and irreversible risk)', () => {
    render(
      <CardDetails initiallyOpen>
        <p>the plan</p>
      </CardDetails>,
    );
    expect(screen.getByRole('button', { name: 'Details' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('the plan')).toBeTruthy();
  });
});
