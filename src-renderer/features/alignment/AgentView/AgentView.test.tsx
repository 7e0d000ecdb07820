import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FILES } from '../../../testing/alignment-fixtures.js';
import { renderAlignment } from '../../../testing/render-alignment.js';
import { resetCharts } from '../../../testing/uplot-fake.js';
import { AgentView } from './AgentView.js';

vi.mock('../AlignmentChart/uplot-chart.js', () => import('../../../testing/uplot-fake.js'));

beforeEach(resetCharts);
afterEach(cleanup);

describe('AgentView', () => {
  it('names the agent shown and holds its drift, violations, trace inspector and card, in that order', async () => {
    await renderAlignment(<AgentView agentId={FILES} />, undefined, FILES);
    expect(screen.getByText(FILES, { selector: '.alignment-agent-view__title code' })).toBeTruthy();
    expect(screen.getAllByRole('region').map((region) => region.getAttribute('aria-labelledby') && document.getElementById(region.getAttribute('aria-labelledby')!)?.textContent)).toEqual([
      'Drift',
      'Violations',
      'Trace inspector',
      'Alignment card',
    ]);
  });
});
