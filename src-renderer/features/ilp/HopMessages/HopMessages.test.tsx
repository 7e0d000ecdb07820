import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { hop, hopsOf } from '../../../testing/ilp-fixtures.js';
import { HopMessages } from './HopMessages.js';

afterEach(cleanup);

describe('HopMessages', () => {
  it('shows each hop\'s raw request and response in <pre>, closed until opened', () => {
    const { container } = render(<HopMessages hops={hopsOf()} />);
    const details = [...container.querySelectorAll('details')];
    expect(details.map((d) => d.querySelector('summary')!.textContent)).toEqual([
      'meta-agent · THINK /insight · 200 OK · 120 ms',
      'financial · THINK /insight · 200 OK · 120 ms',
      'biology · THINK /insight · 200 OK · 120 ms',
    ]);
    expect(details.every((d) => !d.open)).toBe(true);
    fireEvent.click(details[0]!.querySelector('summary')!);
    const request = screen.getByLabelText('Request to meta-agent');
    expect(request.tagName).toBe('PRE');
    expect(request.textContent).toMatch(/^THINK \/insight ILP\/1\.0\nConstitutional-Header: \{"domain":"meta"/);
    expect(screen.getByLabelText('Response from meta-agent').textContent).toMatch(/^ILP\/1\.0 200 OK\n/);
  });

  it('shows an agent\'s answer as text, never as HTML', () => {
    const hostile = 'ILP/1.0 200 OK\n\n{"answer":"<img src=x onerror=alert(1)><script>steal()</script>"}';
    const { container } = render(<HopMessages hops={[hop('h-evil', { agent: 'evil', response_text: hostile })]} />);
    expect(screen.getByLabelText('Response from evil').textContent).toBe(hostile);
    expect(container.querySelector('img, script')).toBeNull();
  });
});
