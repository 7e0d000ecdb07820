import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { IlpRuntime, QUERY_HEADER } from '../../../testing/ilp-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { ReplayForm } from './ReplayForm.js';

afterEach(cleanup);

const header = () => screen.getByRole('textbox', { name: 'Constitutional-Header' }) as HTMLTextAreaElement;
const replay = () => screen.getByRole('button', { name: 'Replay' }) as HTMLButtonElement;

describe('ReplayForm', () => {
  it('is prefilled with the header the query was sent with, and replays it edited, the outcome beside the original', async () => {
    const harness = await renderIlp(<ReplayForm />, new IlpRuntime(), 'c-3');
    expect(JSON.parse(header().value)).toEqual(QUERY_HEADER);
    fireEvent.change(header(), { target: { value: JSON.stringify({ ...QUERY_HEADER, max_budget_usd: 0.0001 }) } });
    fireEvent.click(replay());
    await flushAll();
    expect(harness.runtime.replays).toEqual([{ id: 'c-3', constitutional_header: JSON.stringify({ ...QUERY_HEADER, max_budget_usd: 0.0001 }) }]);
    expect(screen.getByRole('status', { name: 'Replay outcome' }).textContent).toBe('Original 200 OK · Replay 429 Budget Exceeded');
    fireEvent.click(screen.getByRole('button', { name: 'Inspect the replay' }));
    await flushAll();
    expect(harness.store.getState().ilp).toMatchObject({ selected: 'c-replay', view: { composition: { replay_of: 'c-3', status: 429 } } });
  });

  it('checks the header as a JSON object as it is typed, and will not replay until it is one', async () => {
    const harness = await renderIlp(<ReplayForm />, new IlpRuntime(), 'c-3');
    expect(replay().disabled).toBe(false);
    fireEvent.change(header(), { target: { value: '{"max_budget_usd": ' } });
    expect(header().getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText(/^Not JSON yet: /)).toBeTruthy();
    expect(replay().disabled).toBe(true);
    fireEvent.change(header(), { target: { value: '[0.0001]' } });
    expect(screen.getByText('The Constitutional-Header is a JSON object of its fields, not an array.')).toBeTruthy();
    fireEvent.submit(header().closest('form')!);
    await flushAll();
    expect(harness.runtime.replays).toEqual([]);
    fireEvent.change(header(), { target: { value: '{}' } });
    expect(header().getAttribute('aria-invalid')).toBe('false');
    expect(screen.getByText('A JSON object: ready to replay.')).toBeTruthy();
  });

  it('says why a replay was refused, and shows nothing before a composition is inspected', async () => {
    const runtime = new IlpRuntime();
    const empty = await renderIlp(<ReplayForm />, runtime);
    expect(empty.container.textContent).toBe('');
    cleanup();
    const harness = await renderIlp(<ReplayForm />, runtime, 'c-3');
    harness.transport.handle('ilp.replay', () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'constitutional_header is not JSON' } }));
    fireEvent.click(replay());
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not replay: constitutional_header is not JSON (E_INVALID_ARGS)');
  });
});
