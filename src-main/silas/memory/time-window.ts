/*
 * The time window a message or a `temporal` MemoryQuery speaks of (spec 002 §6.3 item 3: "find
 * memories within a time window relative to query context"). Deterministic and English only: a
 * phrase it does not know gives no window, and the temporal branch of recall stays out of the
 * merge rather than guessing. Windows are half-open [from, to) in UTC days.
 */

export interface TimeWindow {
  from: Date;
  to: Date;
  /** The words that named it, for the audit and the context inspector. */
  phrase: string;
}

const DAY = 86_400_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const UNITS: Record<string, number> = { day: 1, days: 1, week: 7, weeks: 7, month: 30, months: 30, year: 365, years: 365 };
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, couple: 2, few: 3 };

function startOfDay(at: Date): number {
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

function window(from: number, to: number, phrase: string): TimeWindow {
  return { from: new Date(from), to: new Date(to), phrase };
}

/** The first time phrase of `text` as a window relative to `now`, or null. */
export function timeWindowOf(text: string, now: Date): TimeWindow | null {
  const lower = text.toLowerCase().slice(0, 4000);
  const today = startOfDay(now);

  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(lower);
  if (iso) {
    const day = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
    if (Number.isFinite(day) && new Date(day).getUTCDate() === Number(iso[3])) return window(day, day + DAY, iso[0]);
  }
  if (/\btoday\b|\bthis morning\b|\bearlier today\b/.test(lower)) return window(today, today + DAY, 'today');
  if (/\byesterday\b/.test(lower)) return window(today - DAY, today, 'yesterday');

  const ago = /\b(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple|few)\s+(?:of\s+)?(days?|weeks?|months?|years?)\s+ago\b/.exec(lower);
  if (ago) {
    const count = NUMBERS[ago[1]!] ?? Number(ago[1]);
    const span = UNITS[ago[2]!]!;
    const centre = today - count * span * DAY;
    // "three days ago" is that day; "two weeks ago" is the week around it.
    const half = span === 1 ? 0 : Math.ceil((span * DAY) / 2);
    return window(centre - half, centre + DAY + half, ago[0]);
  }

  const last = /\b(last|past|previous|this)\s+(week|month|year)\b/.exec(lower);
  if (last) {
    const span = UNITS[last[2]!]! * DAY;
    return last[1] === 'this' ? window(today - span + DAY, today + DAY, last[0]) : window(today - 2 * span + DAY, today - span + DAY, last[0]);
  }
  const recent = /\b(?:in the |over the )?(?:last|past)\s+(\d{1,3}|two|three|four|five|six|seven|few|couple of)\s+(days|weeks|months)\b/.exec(lower);
  if (recent) {
    const count = NUMBERS[recent[1]!.replace(' of', '')] ?? Number(recent[1]);
    return window(today - count * UNITS[recent[2]!]! * DAY + DAY, today + DAY, recent[0]);
  }

  const month = new RegExp(`\\b(?:in|during|since|from)\\s+(${MONTHS.join('|')})(?:\\s+(\\d{4}))?\\b`).exec(lower);
  if (month) {
    const index = MONTHS.indexOf(month[1]!);
    let year = month[2] ? Number(month[2]) : now.getUTCFullYear();
    // "in March" said in February means last March.
    if (!month[2] && index > now.getUTCMonth()) year -= 1;
    const from = Date.UTC(year, index, 1);
    const to = lower.includes(`since ${month[1]}`) || lower.includes(`from ${month[1]}`) ? today + DAY : Date.UTC(year, index + 1, 1);
    return window(from, to, month[0]);
  }
  return null;
}
