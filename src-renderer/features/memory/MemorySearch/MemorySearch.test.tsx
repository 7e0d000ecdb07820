import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemorySearch } from './MemorySearch.js';

afterEach(cleanup);

const group = (name: string) => screen.getByRole('group', { name });

describe('MemorySearch', () => {
  it('searches for the text when submitted, not while it is typed', async () => {
    const harness = await renderMemory(<MemorySearch />);
    const box = within(screen.getByRole('search', { name: 'Memory' })).getByRole('searchbox', { name: 'Search memory' });
    fireEvent.change(box, { target: { value: 'tabs' } });
    await flushAll();
    expect(harness.runtime.searches).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await flushAll();
    expect(harness.runtime.searches.at(-1)).toMatchObject({ query: 'tabs' });
  });

  it('offers every lane, type, trust level and taint, and applies a filter at once', async () => {
    const harness = await renderMemory(<MemorySearch />);
    expect(within(group('Lane')).getAllByRole('radio').map((r) => r.parentElement!.textContent)).toEqual(['Active', 'Raw record', 'All']);
    expect((within(group('Lane')).getByRole('radio', { name: 'Active' }) as HTMLInputElement).checked).toBe(true);
    expect(within(group('Type')).getAllByRole('checkbox')).toHaveLength(7);
    expect(within(group('Trust')).getAllByRole('checkbox').map((c) => c.parentElement!.textContent)).toEqual(['Working', 'Verified', 'Constitutional']);
    expect(within(group('Taint')).getAllByRole('checkbox').map((c) => c.parentElement!.textContent)).toEqual(['Signed by you', 'Your session', 'From outside']);

    fireEvent.click(within(group('Lane')).getByRole('radio', { name: 'All' }));
    fireEvent.click(within(group('Taint')).getByRole('checkbox', { name: 'From outside' }));
    fireEvent.click(within(group('Type')).getByRole('checkbox', { name: 'Fact' }));
    fireEvent.click(within(group('Type')).getByRole('checkbox', { name: 'Preference' }));
    fireEvent.click(within(group('Type')).getByRole('checkbox', { name: 'Fact' }));
    await flushAll();
    expect(harness.runtime.searches.at(-1)).toMatchObject({ lane: 'all', taints: ['external'], types: ['preference'] });
    expect(screen.getByRole('checkbox', { name: 'From outside' })).toHaveProperty('checked', true);
  });

  it('bounds the time by days, until including its day', async () => {
    const harness = await renderMemory(<MemorySearch />);
    fireEvent.change(screen.getByLabelText('Since'), { target: { value: '2026-01-01' } });
    fireEvent.change(screen.getByLabelText('Until'), { target: { value: '2026-01-31' } });
    await flushAll();
    expect(harness.runtime.searches.at(-1)).toMatchObject({ since: new Date(2026, 0, 1).toISOString(), until: new Date(2026, 1, 1).toISOString() });
    expect(screen.getByLabelText('Since').getAttribute('max')).toBe('2026-01-31');
    fireEvent.change(screen.getByLabelText('Since'), { target: { value: '' } });
    await flushAll();
    expect(harness.runtime.searches.at(-1)).toMatchObject({ since: null });
  });
});
