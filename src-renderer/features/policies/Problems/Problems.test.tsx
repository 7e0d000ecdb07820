import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { typoDiagnostic } from '../../../testing/policy-fixtures.js';
import { Problems } from './Problems.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Problems' });

describe('Problems', () => {
  it('lists each problem at its line and column, warnings marked', () => {
    render(<Problems diagnostics={[typoDiagnostic, { ...typoDiagnostic, line: 9, column: 1, message: 'no tool is allowed', severity: 'warning' }]} stale={false} />);
    const items = within(region()).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'line 6, column 3: unknown key "alowed_tools" in spec (did you mean "allowed_tools"?)',
      'line 9, column 1: no tool is allowed (warning)',
    ]);
    expect(items[1]!.className).toContain('policy-problem--warning');
    expect(region().textContent).toContain('Problems (2)');
    expect(region().getAttribute('aria-busy')).toBe('false');
  });

  it('says when there are none, and when the draft is still being checked', () => {
    const { rerender } = render(<Problems diagnostics={[]} stale={false} />);
    expect(region().textContent).toContain('No problems: the draft loads.');
    rerender(<Problems diagnostics={null} stale />);
    expect(region().textContent).toContain('Checking the draft…');
    expect(region().getAttribute('aria-busy')).toBe('true');
  });
});
