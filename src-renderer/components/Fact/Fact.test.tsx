import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Fact } from './Fact.js';

describe('Fact', () => {
  it('pairs its term with its description inside a description list', () => {
    render(
      <dl>
        <Fact term="Backend">bubblewrap</Fact>
      </dl>,
    );
    expect(screen.getByRole('term').textContent).toBe('Backend');
    expect(screen.getByRole('definition').textContent).toBe('bubblewrap');
  });
});
