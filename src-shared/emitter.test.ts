import { describe, expect, it } from 'vitest';
import { Emitter } from './emitter.js';

describe('Emitter', () => {
  it('delivers to every subscriber until it unsubscribes', () => {
    const emitter = new Emitter<[string, number]>();
    const seen: string[] = [];
    const stop = emitter.subscribe((name, n) => seen.push(`a:${name}${n}`));
    emitter.subscribe((name, n) => seen.push(`b:${name}${n}`));
    emitter.publish('x', 1);
    stop();
    stop();
    emitter.publish('y', 2);
    expect(seen).toEqual(['a:x1', 'b:x1', 'b:y2']);
    expect(emitter.size).toBe(1);
  });

  it('publishes to the listeners subscribed when publish began', () => {
    const emitter = new Emitter();
    const seen: string[] = [];
    let stopB = (): void => undefined;
    emitter.subscribe(() => {
      seen.push('a');
      stopB();
      emitter.subscribe(() => seen.push('late'));
    });
    stopB = emitter.subscribe(() => seen.push('b'));
    emitter.publish();
    expect(seen).toEqual(['a', 'b']);
  });

  it('reports a throwing listener to onError and still runs the others', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<[number]>((error) => errors.push(error));
    const seen: number[] = [];
    emitter.subscribe(() => {
      throw new Error('closed socket');
    });
    emitter.subscribe((n) => seen.push(n));
    emitter.publish(7);
    expect(seen).toEqual([7]);
    expect(errors).toEqual([new Error('closed socket')]);
  });

  it('lets the error propagate when no onError is given', () => {
    const emitter = new Emitter();
    emitter.subscribe(() => {
      throw new Error('boom');
    });
    expect(() => emitter.publish()).toThrow('boom');
  });
});
