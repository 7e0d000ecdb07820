import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AlignmentRuntime, FILES, fleetOf, SILAS } from '../../../testing/alignment-fixtures.js';
import { renderAlignment } from '../../../testing/render-alignment.js';
import { FleetCoherence } from './FleetCoherence.js';

afterEach(cleanup);

const region = () => screen.getByRole('region', { name: 'Fleet coherence' });

describe('FleetCoherence', () => {
  it('shows the matrix as a heatmap with the conflicting pair marked and its values named', async () => {
    await renderAlignment(<FleetCoherence />);
    expect(region().textContent).toContain('Fleet coherence 0.48');
    const table = within(region()).getByRole('table', { name: 'Coherence matrix' });
    const rows = within(table).getAllByRole('row');
    expect(within(rows[0]!).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([FILES, 'mcp:shop', SILAS]);
    const files = within(rows[1]!).getAllByRole('cell');
    expect(files.map((c) => c.textContent)).toEqual(['—', '0.13 conflict: privacy, upselling', '0.80']);
    expect(files[1]!.className).toContain('coherence-cell--conflict');
    expect(files[1]!.className).toContain('coherence-cell--low');
    expect(files[2]!.className).toBe('coherence-cell coherence-cell--high');
    // The matrix is symmetric: the pair is marked in both of its cells.
    expect(within(rows[2]!).getAllByRole('cell')[0]!.className).toContain('coherence-cell--conflict');
    expect(within(rows[2]!).getAllByRole('cell')[2]!.className).toBe('coherence-cell coherence-cell--mid');
  });

  it('names each conflict and lists the outliers and clusters', async () => {
    await renderAlignment(<FleetCoherence />);
    expect(within(within(region()).getByRole('list', { name: 'Value conflicts' })).getByRole('listitem').textContent).toBe(`${FILES} and mcp:shop conflict on privacy, upselling`);
    expect(within(within(region()).getByRole('list', { name: 'Outliers' })).getByRole('listitem').textContent).toBe('mcp:shop');
    expect(within(within(region()).getByRole('list', { name: 'Clusters' })).getByRole('listitem').textContent).toBe(`${FILES}, ${SILAS}`);
  });

  it('says there is nothing to compare with fewer than two agents, and when nothing conflicts', async () => {
    const one = new AlignmentRuntime();
    one.fleet = fleetOf({ agents: [FILES], matrix: [[1]], conflicts: [], outliers: [], clusters: [] });
    await renderAlignment(<FleetCoherence />, one);
    expect(region().textContent).toContain('there is one yet');
    cleanup();
    const calm = new AlignmentRuntime();
    calm.fleet = fleetOf({ conflicts: [], outliers: [], clusters: [] });
    await renderAlignment(<FleetCoherence />, calm);
    expect(region().textContent).toContain('No pair of agents holds conflicting values.');
    expect(region().textContent).toContain('No outlier');
    expect(region().querySelector('.coherence-cell--conflict')).toBeNull();
  });
});
