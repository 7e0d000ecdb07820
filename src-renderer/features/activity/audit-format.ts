import { auditCategory, auditEvents, canonicalAuditEvent, type AuditCategory } from '../../../src-shared/audit/events.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { ChainState } from '../../store/chain-slice.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2026-01-02 03:04:05` in the viewer's time zone; an unparseable stamp is shown as stored. */
export function formatLocalTime(ts: string): string {
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return ts;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function summarizeValue(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.replace(/\s+/g, ' ');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  const keys = Object.keys(value);
  return keys.length === 0 ? '{}' : `{${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}}`;
}

/**
 * One line that lets a person scan the log: top-level `key: value` pairs, nested values
 * reduced to their shape. The full entry is one click away, so this may cut freely.
 */
export function summarizeData(data: JsonObject, maxLength = 160): string {
  const parts = Object.entries(data).map(([key, value]) => `${key}: ${summarizeValue(value)}`);
  if (parts.length === 0) return '—';
  const line = parts.join(' · ');
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}

/**
 * What an entry's event is, from the catalogue: its category (for styling and filtering) and
 * its one-line summary. Names an older version wrote get the description of their name now;
 * a name this version does not know (a newer writer's) is shown as stored, without one.
 */
export function describeEvent(event: string): { category: AuditCategory | 'other'; summary: string | null } {
  const known = canonicalAuditEvent(event);
  return { category: auditCategory(event), summary: known === null ? null : auditEvents[known].summary };
}

/** The entry as stored, fields in chain order, for the expanded row. */
export function formatEntryJson(entry: AuditEntry): string {
  const { index, id, ts, event, data, prevHash, hash } = entry;
  return JSON.stringify({ index, id, ts, event, data, prevHash, hash }, null, 2);
}

const countFormat = new Intl.NumberFormat('en-US');

export function formatCount(n: number): string {
  return countFormat.format(n);
}

/** The badge's words for the chain's state; also what screen readers announce. */
export function chainBadgeText(chain: Pick<ChainState, 'status' | 'entries' | 'firstInvalid'>): string {
  switch (chain.status) {
    case 'verifying':
      return 'Verifying…';
    case 'intact':
      return `Chain intact · ${formatCount(chain.entries)} ${chain.entries === 1 ? 'entry' : 'entries'} verified`;
    case 'broken': {
      const at = chain.firstInvalid;
      return at ? `Chain broken at entry ${at.index}: ${at.reason}` : 'Chain broken';
    }
    default:
      return 'Not verified';
  }
}
