import type { WorkItem } from '../../../src-shared/silas/work.js';
import { clip } from './audit.js';
import type { ExecutorPersistence } from './persistence.js';
import type { ExecutorAuditSink } from './types.js';

/**
 * Follow-up artifact hydration (spec 002 §5.2.1 step 0.5): a "go deeper" item imports named
 * artifacts of the completed item it follows up. The linkage must hold exactly: the referenced
 * item exists and is done, and every named key exists in its recorded result; otherwise the
 * follow-up is blocked with the reason, before anything runs.
 */
export function hydrateFollowUp(
  item: WorkItem,
  store: Pick<ExecutorPersistence, 'get' | 'result'>,
  audit: ExecutorAuditSink,
): { ok: true; artifacts: Record<string, string> } | { ok: false; reason: string } {
  const source = item.follow_up_of;
  if (source === null) return { ok: true, artifacts: {} };
  const refuse = (reason: string) => {
    audit.append('silas.executor.follow_up_unlinked', { work_item_id: item.id, follow_up_of: source, reason: clip(reason) });
    return { ok: false as const, reason };
  };
  const previous = store.get(source);
  if (!previous) return refuse(`follow_up_of: work item ${source} is not in the work item store`);
  if (previous.status !== 'done') return refuse(`follow_up_of: work item ${source} is ${previous.status}, not done; only a completed item's artifacts can be imported`);
  const available = store.result(source)?.artifacts ?? {};
  const wanted = item.input_artifacts_from;
  let keys: string[];
  if (wanted.includes('*')) {
    keys = Object.keys(available);
  } else {
    const missing = wanted.filter((key) => !Object.hasOwn(available, key));
    if (missing.length > 0) return refuse(`input_artifacts_from: ${source} has no artifact ${missing.map((k) => `"${k}"`).join(', ')} (it has: ${Object.keys(available).join(', ') || 'none'})`);
    keys = [...wanted];
  }
  const artifacts = Object.fromEntries(keys.map((key) => [key, available[key]!]));
  audit.append('silas.executor.artifacts_hydrated', { work_item_id: item.id, follow_up_of: source, keys: keys.slice(0, 200) });
  return { ok: true, artifacts };
}
