import { describe, expect, it } from 'vitest';
import { dependentsOf, projectOrder } from './project-order.js';

const graph = (edges: Record<string, string[]>) => (id: string) => edges[id] ?? [];

describe('projectOrder', () => {
  it('orders tasks after their dependencies, keeping the listed order among ready tasks', () => {
    const deps = graph({ deploy: ['build', 'test'], build: ['test'], docs: [] });
    expect(projectOrder(['deploy', 'docs', 'build', 'test'], deps)).toEqual({ ok: true, order: ['docs', 'test', 'build', 'deploy'], external: [] });
    expect(projectOrder(['a', 'b', 'c'], graph({}))).toEqual({ ok: true, order: ['a', 'b', 'c'], external: [] });
  });

  it('reports dependencies outside the project separately', () => {
    expect(projectOrder(['a', 'b'], graph({ a: ['setup'], b: ['a', 'setup'] }))).toEqual({ ok: true, order: ['a', 'b'], external: ['setup'] });
  });

  it('refuses a cycle with its path and the field to fix', () => {
    const result = projectOrder(['a', 'b', 'c', 'd'], graph({ a: ['c'], b: ['a'], c: ['b'], d: [] }));
    expect(result).toEqual({ ok: false, field: 'tasks.a.depends_on', reason: 'dependency cycle a -> c -> b -> a; break it by removing one depends_on entry' });
    expect(projectOrder(['a'], graph({ a: ['a'] }))).toMatchObject({ ok: false, reason: expect.stringContaining('a -> a') });
  });

  it('finds the cycle behind a task that only depends on one', () => {
    const result = projectOrder(['x', 'a', 'b'], graph({ x: ['a'], a: ['b'], b: ['a'] }));
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('a -> b -> a') });
  });

  it('lists the transitive dependents of a failed task', () => {
    const deps = graph({ b: ['a'], c: ['b'], d: [], e: ['d', 'c'] });
    expect(dependentsOf('a', ['a', 'b', 'c', 'd', 'e'], deps)).toEqual(['b', 'c', 'e']);
    expect(dependentsOf('d', ['a', 'b', 'c', 'd', 'e'], deps)).toEqual(['e']);
  });
});
