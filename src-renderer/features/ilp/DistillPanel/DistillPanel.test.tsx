import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../../src-shared/contract/index.js';
import { distillResult, IlpRuntime } from '../../../testing/ilp-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { DistillPanel } from './DistillPanel.js';

afterEach(cleanup);

const distill = () => screen.getByRole('button', { name: 'Distill now' }) as HTMLButtonElement;
const status = () => screen.getByRole('status', { name: 'Distillation' });
const frequency = () => screen.getByRole('spinbutton', { name: 'Minimum episodes per pattern' }) as HTMLInputElement;

describe('DistillPanel', () => {
  it('says what it is doing while it runs, will not start twice, then leads to Review', async () => {
    const harness = await renderIlp(<DistillPanel />);
    let answer: (value: Envelope<unknown>) => void = () => {};
    harness.transport.handle('ilp.distill', () => new Promise((resolve) => (answer = resolve)));
    expect(status().textContent).toBe('');
    fireEvent.click(distill());
    await flushAll();
    expect(distill().disabled).toBe(true);
    expect(distill().getAttribute('aria-busy')).toBe('true');
    expect(status().textContent).toBe('Distilling — finding patterns in episodic memory and asking the planner model…');
    fireEvent.submit(distill().closest('form')!);
    expect(harness.transport.callsTo('ilp.distill')).toEqual([{ min_frequency: 3 }]);

    answer({ ok: true, value: distillResult() });
    await flushAll();
    expect(distill().disabled).toBe(false);
    expect(status().textContent).toBe('2 slices proposed — decide on them in Review');
    fireEvent.click(within(status()).getByRole('link', { name: 'Review' }));
    expect(harness.store.getState().navigation.route).toBe('review');
  });

  it('lists the patterns it turned down with their reasons, and what it left out, as text', async () => {
    const runtime = new IlpRuntime();
    runtime.distilled = distillResult({
      patterns: 3,
      proposed: [],
      rejected: [
        { concepts: ['budget', 'forecast'], reasons: ['confidence 0.55 is below 0.7', 'constitutional enforcer: 403 honesty_threshold'] },
        { concepts: ['<img src=x onerror=alert(1)>'], reasons: ['injection screen: instruction to ignore previous instructions'] },
      ],
      skipped: 1,
      untrusted_episodes: 2,
    });
    const { container } = await renderIlp(<DistillPanel />, runtime);
    fireEvent.click(distill());
    await flushAll();
    expect(status().textContent).toBe('No new slices: 3 patterns found, 2 rejected');
    expect(within(status()).queryByRole('link')).toBeNull();
    const rejected = within(screen.getByRole('list', { name: 'Rejected patterns' })).getAllByRole('listitem');
    expect(rejected.map((li) => li.textContent)).toEqual([
      'budget, forecast: confidence 0.55 is below 0.7; constitutional enforcer: 403 honesty_threshold',
      '<img src=x onerror=alert(1)>: injection screen: instruction to ignore previous instructions',
    ]);
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('1 pattern was skipped: already in force, declined, or waiting in Review.')).toBeTruthy();
    expect(screen.getByText('2 episodes changed outside Silas were not read.')).toBeTruthy();
  });

  it("shows the runtime's message when distillation fails, and a second run starts clean", async () => {
    const harness = await renderIlp(<DistillPanel />);
    harness.transport.handle('ilp.distill', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'no planner model is configured' } }));
    fireEvent.click(distill());
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not distill: no planner model is configured (E_UNAVAILABLE)');
    expect(status().textContent).toBe('');
    harness.runtime.serve(harness.transport);
    fireEvent.click(distill());
    await flushAll();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(status().textContent).toBe('2 slices proposed — decide on them in Review');
  });

  it('sends the minimum episodes per pattern typed, and only one the runtime accepts', async () => {
    const harness = await renderIlp(<DistillPanel />);
    fireEvent.change(frequency(), { target: { value: '1' } });
    expect(frequency().getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('A whole number from 2 to 1,000.')).toBeTruthy();
    expect(distill().disabled).toBe(true);
    fireEvent.submit(distill().closest('form')!);
    expect(harness.transport.callsTo('ilp.distill')).toEqual([]);
    fireEvent.change(frequency(), { target: { value: '5' } });
    expect(frequency().getAttribute('aria-invalid')).toBe('false');
    fireEvent.click(distill());
    await flushAll();
    expect(harness.runtime.distills).toEqual([{ min_frequency: 5 }]);
  });
});
