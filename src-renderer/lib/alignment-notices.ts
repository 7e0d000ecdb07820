import { auditEvents, canonicalAuditEvent } from '../../src-shared/audit/events.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import type { NotificationsPort } from './notifications.js';

/** A browser notification about an agent's alignment, as the runtime's own notifier words it. */
export interface AlignmentNotice {
  /** One per agent and kind: a newer notification replaces the one still shown. */
  tag: string;
  agentId: string;
  /** The trace the inspector opens when the notification is clicked. */
  traceId: string | null;
  title: string;
  body: string;
  /** How many entries this notice stands for (a burst is shown once). */
  count: number;
  burstTitle(count: number): string;
}

const BODY_MAX = 300;

/** The notice for an `aap.violation` or `aap.drift_alert` entry; null for any other entry, or one whose data is malformed. */
export function alignmentNotice(entry: Pick<AuditEntry, 'event' | 'data'>): AlignmentNotice | null {
  const event = canonicalAuditEvent(entry.event);
  if (event === 'aap.violation') {
    const parsed = auditEvents[event].data.safeParse(entry.data);
    if (!parsed.success) return null;
    const v = parsed.data;
    return {
      tag: `silas-alignment-violation-${v.agent_id}`,
      agentId: v.agent_id,
      traceId: v.trace_id,
      title: `${v.agent_id} broke its Alignment Card`,
      body: v.violations.map((x) => x.description).join('; ').slice(0, BODY_MAX),
      count: 1,
      burstTitle: (count) => `${v.agent_id} broke its Alignment Card ${count} times`,
    };
  }
  if (event !== 'aap.drift_alert') return null;
  const parsed = auditEvents[event].data.safeParse(entry.data);
  if (!parsed.success) return null;
  const d = parsed.data;
  return {
    tag: `silas-alignment-drift-${d.agent_id}`,
    agentId: d.agent_id,
    traceId: d.trace_ids.at(-1) ?? null,
    title: `${d.agent_id} is drifting from its baseline`,
    body: `${d.sustained} decisions in a row at similarity ${d.similarity.toFixed(2)} (${d.direction.replaceAll('_', ' ')}).`.slice(0, BODY_MAX),
    count: 1,
    burstTitle: (count) => `${d.agent_id} raised ${count} drift alerts`,
  };
}

export interface NoticeBatch {
  add(notice: AlignmentNotice): void;
  /** Drops what is waiting (dispose). */
  cancel(): void;
}

/**
 * Shows notices through `port` (only while permission is granted): one notification per agent and
 * kind per burst, `delayMs` after the burst's first, so a page of recorded violations is one
 * notification rather than hundreds. `open` runs when one is clicked.
 */
export function noticeBatch(port: NotificationsPort | null, delayMs: number, open: (notice: AlignmentNotice) => void): NoticeBatch {
  const waiting = new Map<string, AlignmentNotice>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const granted = () => port !== null && port.permission() === 'granted';
  const flush = () => {
    timer = null;
    const due = [...waiting.values()];
    waiting.clear();
    if (!granted()) return;
    for (const notice of due) port!.show(notice.count > 1 ? notice.burstTitle(notice.count) : notice.title, notice.body, notice.tag, () => open(notice));
  };
  return {
    add(notice) {
      if (!granted()) return;
      const held = waiting.get(notice.tag);
      waiting.set(notice.tag, held ? { ...notice, count: held.count + notice.count } : notice);
      timer ??= setTimeout(flush, delayMs);
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      waiting.clear();
    },
  };
}
