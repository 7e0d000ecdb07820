import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { compositionView } from '../../../testing/ilp-fixtures.js';
import { Influencers } from './Influencers.js';

afterEach(cleanup);

describe('Influencers', () => {
  it('ranks the influencers heaviest first, each with its weight as a bar and a number, its slice and the reason', () => {
    const { container } = render(<Influencers influencers={compositionView('c-1').influencers} />);
    const items = within(screen.getByRole('list', { name: 'Influencers' })).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.ilp-influencer__concept')!.textContent)).toEqual(['homeostasis', 'feedback_loop', 'domain_selection']);
    expect(items[0]!.textContent).toContain('0.91');
    expect(items[0]!.textContent).toContain('agent/biology');
    expect(items[0]!.textContent).toContain("biology contributed concept 'homeostasis'");
    const bars = [...container.querySelectorAll<HTMLElement>('.ilp-influencer__fill')].map((bar) => bar.style.width);
    expect(bars).toEqual(['91%', '84%', '80%']);
    expect(container.querySelector('.ilp-influencer__bar')!.getAttribute('aria-hidden')).toBe('true');
  });

  it('says when no attention was traced', () => {
    render(<Influencers influencers={[]} />);
    expect(screen.getByRole('region', { name: 'Influencers' }).textContent).toContain('No attention was traced');
    expect(screen.queryByRole('list')).toBeNull();
  });
});
