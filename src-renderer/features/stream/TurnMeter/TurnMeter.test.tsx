import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { emitStream, renderStream } from '../../../testing/render-stream.js';
import { event, usage } from '../../../testing/stream-fixtures.js';
import { TurnMeter } from './TurnMeter.js';

afterEach(cleanup);

const facts = () =>
  Array.from(screen.getByRole('region', { name: 'Turn usage' }).querySelectorAll('dl > div')).map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]);

describe('TurnMeter', () => {
  it('appears after a turn with its tokens and cost', async () => {
    const harness = await renderStream(<TurnMeter />);
    expect(screen.queryByRole('region', { name: 'Turn usage' })).toBeNull();
    emitStream(harness, event('turn_finished', { turn_id: 't1', outcome: 'answered', usage: usage(), error: null }));
    expect(facts()).toEqual([
      ['Prompt', '1,200 tokens'],
      ['Input', '1,500 tokens'],
      ['Output', '230 tokens'],
      ['Cost', '$0.0012'],
    ]);
    expect(screen.getByRole('region', { name: 'Turn usage' }).textContent).toContain('2 model calls, answered');
  });

  it('says "not priced" when no answering role has a price, and follows the latest turn', async () => {
    const harness = await renderStream(<TurnMeter />);
    emitStream(
      harness,
      event('turn_finished', { turn_id: 't1', outcome: 'answered', usage: usage(), error: null }),
      event('turn_finished', { turn_id: 't2', outcome: 'cancelled', usage: usage({ prompt_tokens: 10, input_tokens: 10, output_tokens: 0, cost_usd: null, model_calls: 1 }), error: null }),
    );
    expect(facts()).toEqual([
      ['Prompt', '10 tokens'],
      ['Input', '10 tokens'],
      ['Output', '0 tokens'],
      ['Cost', 'not priced'],
    ]);
    expect(screen.getByRole('region', { name: 'Turn usage' }).textContent).toContain('1 model call, stopped');
  });
});
