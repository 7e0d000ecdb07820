/**
 * Topological order of a project's tasks by `depends_on` (spec 002 §5.2.2 step 1). Stable: among
 * tasks that are ready, the one listed first in the project's `tasks` runs first. A cycle is
 * refused with its path, so a bad project fails before any task runs.
 */

export type ProjectOrder =
  | {
      ok: true;
      order: string[];
      /** Dependencies on work items outside the project; each must already be done. */
      external: string[];
    }
  | { ok: false; field: string; reason: string };

export function projectOrder(tasks: readonly string[], dependsOn: (taskId: string) => readonly string[]): ProjectOrder {
  const members = new Set(tasks);
  const external = new Set<string>();
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const id of tasks) {
    const inside = dependsOn(id).filter((dep) => {
      if (!members.has(dep)) external.add(dep);
      return members.has(dep);
    });
    waitingOn.set(id, inside.length);
    for (const dep of inside) dependents.set(dep, [...(dependents.get(dep) ?? []), id]);
  }

  const position = new Map(tasks.map((id, index) => [id, index]));
  const ready = tasks.filter((id) => waitingOn.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
    const next = ready.shift()!;
    order.push(next);
    for (const dependent of dependents.get(next) ?? []) {
      const left = waitingOn.get(dependent)! - 1;
      waitingOn.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  if (order.length < tasks.length) {
    const cycle = findCycle(tasks.filter((id) => !order.includes(id)), (id) => dependsOn(id).filter((dep) => members.has(dep)));
    return { ok: false, field: `tasks.${cycle[0]}.depends_on`, reason: `dependency cycle ${cycle.join(' -> ')}; break it by removing one depends_on entry` };
  }
  return { ok: true, order, external: [...external] };
}

/** A cycle among `nodes` (every one of which is on or behind a cycle), as a path ending where it started. */
function findCycle(nodes: readonly string[], next: (id: string) => readonly string[]): string[] {
  const remaining = new Set(nodes);
  const path: string[] = [];
  let current = nodes[0]!;
  while (!path.includes(current)) {
    path.push(current);
    current = next(current).find((dep) => remaining.has(dep))!;
  }
  return [...path.slice(path.indexOf(current)), current];
}

/** Every task that depends on `failed`, directly or through other tasks, in project order. */
export function dependentsOf(failed: string, order: readonly string[], dependsOn: (taskId: string) => readonly string[]): string[] {
  const blocked = new Set([failed]);
  for (const id of order) {
    if (dependsOn(id).some((dep) => blocked.has(dep))) blocked.add(id);
  }
  blocked.delete(failed);
  return order.filter((id) => blocked.has(id));
}
