import { describe, expect, it } from 'vitest';
import { applyMutations, frozenContext } from './mutations.js';

describe('applyMutations', () => {
  it('never changes the input context and returns a frozen one', () => {
    const context = frozenContext({ message: 'a', tool_args: { x: 1 } });
    const outcome = applyMutations(context, { message: 'b', tool_args: { y: 2 } });
    expect(context).toEqual({ message: 'a', tool_args: { x: 1 } });
    expect(outcome.context).toEqual({ message: 'b', tool_args: { x: 1, y: 2 } });
    expect(Object.isFrozen(outcome.context.tool_args)).toBe(true);
  });

  it('refuses prototype keys inside tool_args even when the object did not come through a schema', () => {
    const modified = JSON.parse('{"tool_args": {"__proto__": {"polluted": true}}}');
    const outcome = applyMutations({ tool_args: { a: 1 } }, modified);
    expect(outcome.rejected).toEqual([{ key: 'tool_args.__proto__', reason: 'unsafe_key' }]);
    expect(outcome.context).toEqual({ tool_args: { a: 1 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports the original value of each rewritten key, null when it did not exist', () => {
    const outcome = applyMutations({ tool_args: { a: 1 } }, { tool_args: { a: 2, b: 3 }, response: 'r' });
    expect(outcome.accepted).toEqual([
      { key: 'tool_args', original: { a: 1, b: null }, modified: { a: 2, b: 3 } },
      { key: 'response', original: null, modified: 'r' },
    ]);
  });
});
