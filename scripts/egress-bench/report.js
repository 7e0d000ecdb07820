// Figures, the table and the misses of a run. Native MCP rows are kept apart from the rows of
// cases carried as MCP calls, so the native figure stays comparable to the published anchor:
// Pipelock 3.3.0 blocks all 32 MCP attacks of this corpus version with 0 of 8 false positives.
import { MISS_REASONS } from './miss-reasons.js';

const ANCHOR = { tool: 'Pipelock 3.3.0', mcpAttacks: 32, mcpBenign: 8 };

/** Result lines grouped into rows: `{ carriage, category, attacks, blocked, asks, benign, fp, fpAsks, passed, failed, na, errors }`. */
function rows(results) {
  const byKey = new Map();
  for (const r of results) {
    const carriage = r.evidence.carriage;
    const category = r.evidence.category;
    const key = `${carriage}\u0000${category}`;
    if (!byKey.has(key)) byKey.set(key, { carriage, category, attacks: 0, blocked: 0, asks: 0, benign: 0, fp: 0, fpAsks: 0, passed: 0, failed: 0, na: 0, errors: 0 });
    const row = byKey.get(key);
    if (r.score === 'not_applicable') row.na += 1;
    else if (r.score === 'error') row.errors += 1;
    else {
      row[r.score === 'pass' ? 'passed' : 'failed'] += 1;
      const ask = r.evidence.ask === true;
      if (r.expected_verdict === 'block') {
        row.attacks += 1;
        if (r.actual_verdict === 'block') {
          row.blocked += 1;
          if (ask) row.asks += 1;
        }
      } else {
        row.benign += 1;
        if (r.actual_verdict === 'block') {
          row.fp += 1;
          if (ask) row.fpAsks += 1;
        }
      }
    }
  }
  const order = { native: 0, carried: 1, not_applicable: 2 };
  return [...byKey.values()].sort((a, b) => order[a.carriage] - order[b.carriage] || a.category.localeCompare(b.category));
}

function sum(list) {
  const total = { attacks: 0, blocked: 0, asks: 0, benign: 0, fp: 0, fpAsks: 0, passed: 0, failed: 0, na: 0, errors: 0 };
  for (const row of list) for (const k of Object.keys(total)) total[k] += row[k];
  return total;
}

/** The figures in the project's bench format ({"name","unit","value",…}), one object each. */
export function figures(results) {
  const out = [];
  const add = (name, unit, value, extra) => out.push({ name, unit, value, ...extra });
  const all = rows(results);
  for (const row of all) {
    if (row.carriage === 'not_applicable') continue;
    const prefix = row.carriage === 'native' ? `egress.${row.category}` : `egress.carried.${row.category}`;
    // The anchor blocks every native MCP case; nothing is published per case for the carried ones.
    const native = row.carriage === 'native';
    if (row.attacks > 0) add(`${prefix}.attacks_blocked`, 'cases', row.blocked, { of: row.attacks, anchor: native ? row.attacks : null, only_by_ask: row.asks });
    if (row.benign > 0) add(`${prefix}.false_positives`, 'cases', row.fp, { of: row.benign, anchor: native ? 0 : null, by_ask: row.fpAsks });
    add(`${prefix}.score`, 'passed', row.passed, { of: row.passed + row.failed + row.errors, failed: row.failed, errors: row.errors, anchor: native ? row.passed + row.failed + row.errors : null });
  }
  const native = sum(all.filter((r) => r.carriage === 'native'));
  const carried = sum(all.filter((r) => r.carriage === 'carried'));
  add('egress.mcp.attacks_blocked', 'cases', native.blocked, { of: native.attacks, anchor: ANCHOR.mcpAttacks, anchor_of: ANCHOR.mcpAttacks, anchor_tool: ANCHOR.tool, only_by_ask: native.asks });
  add('egress.mcp.false_positives', 'cases', native.fp, { of: native.benign, anchor: 0, anchor_of: ANCHOR.mcpBenign, anchor_tool: ANCHOR.tool, by_ask: native.fpAsks });
  add('egress.mcp.score', 'passed', native.passed, { of: native.passed + native.failed + native.errors, failed: native.failed, errors: native.errors });
  add('egress.carried.attacks_blocked', 'cases', carried.blocked, { of: carried.attacks, anchor: null, only_by_ask: carried.asks });
  add('egress.carried.false_positives', 'cases', carried.fp, { of: carried.benign, anchor: null, by_ask: carried.fpAsks });
  add('egress.not_applicable', 'cases', results.filter((r) => r.score === 'not_applicable').length, { of: results.length });
  return out;
}

function cell(value, of, asks, askWord) {
  if (of === 0) return '–';
  return `${value}/${of}${asks > 0 ? ` (${asks} ${askWord})` : ''}`;
}

/** The per-category table: markdown, so the same text goes to the terminal and the docs. */
export function table(results) {
  const lines = ['| carriage | category | attacks blocked | false positives | score (passed/run) | errors | anchor (attacks, false positives) |', '|---|---|---|---|---|---|---|'];
  const all = rows(results);
  const line = (carriage, category, r, anchor) =>
    lines.push(`| ${carriage} | ${category} | ${cell(r.blocked, r.attacks, r.asks, 'only by ask')} | ${cell(r.fp, r.benign, r.fpAsks, 'asks')} | ${r.passed}/${r.passed + r.failed + r.errors} | ${r.errors} | ${anchor} |`);
  for (const row of all.filter((r) => r.carriage !== 'not_applicable')) {
    line(row.carriage === 'native' ? 'MCP' : 'carried as MCP', row.category, row, row.carriage === 'native' ? `${cell(row.attacks, row.attacks, 0)}, ${cell(0, row.benign, 0)}` : '–');
  }
  line('**MCP total**', '', sum(all.filter((r) => r.carriage === 'native')), `${ANCHOR.mcpAttacks}/${ANCHOR.mcpAttacks}, 0/${ANCHOR.mcpBenign} (${ANCHOR.tool})`);
  line('**carried total**', '', sum(all.filter((r) => r.carriage === 'carried')), '–');
  const na = all.filter((r) => r.carriage === 'not_applicable');
  lines.push('', `Not applicable: ${na.reduce((n, r) => n + r.na, 0)} cases (${na.map((r) => `${r.category} ${r.na}`).join(', ')}).`);
  return lines.join('\n');
}

const escape = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** What a case's evidence shows, in one line. */
function observed(r) {
  const e = r.evidence;
  if (r.score === 'error') return `error: ${String(e.error ?? '').slice(0, 240)}`;
  if (e.tools) return e.tools.error ? `tools/list refused: ${e.tools.error.code} ${e.tools.error.reason ?? e.tools.error.message}` : e.tools.missing.length > 0 ? `withheld from tools/list: ${e.tools.missing.join(', ')}` : 'every tool offered as announced';
  return (e.steps ?? [])
    .map((s) => (s.outcome === 'allowed' ? `${s.tool}: allowed` : `${s.tool}: ${s.how}${s.code !== undefined && s.code !== null ? ` ${s.code}` : ''}${s.reason ? ` (${s.reason})` : ''}`))
    .join('; ');
}

/** Every failed, errored or ask-only case of the run with its reason (miss-reasons.js), as markdown. */
export function misses(results) {
  const list = results.filter((r) => r.score === 'fail' || r.score === 'error' || (r.score === 'pass' && r.evidence.ask === true));
  if (list.length === 0) return 'No misses.';
  const lines = ['| case | carriage | expected | got | what the proxy did | reason |', '|---|---|---|---|---|---|'];
  for (const r of list) {
    const got = r.score === 'pass' ? `${r.actual_verdict} (only by a failed-closed ask)` : r.actual_verdict;
    const reason = MISS_REASONS[r.case_id] ?? `not written yet (case tests: ${r.evidence.why_expected})`;
    lines.push(`| \`${r.case_id}\` | ${r.evidence.carriage === 'native' ? 'MCP' : 'carried'} | ${r.expected_verdict} | ${got} | ${escape(observed(r))} | ${escape(reason)} |`);
  }
  return lines.join('\n');
}

/** The not-applicable cases with why, as markdown. */
export function notApplicable(results) {
  const byReason = new Map();
  for (const r of results.filter((x) => x.score === 'not_applicable')) {
    if (!byReason.has(r.notes)) byReason.set(r.notes, []);
    byReason.get(r.notes).push(r.case_id);
  }
  return [...byReason.entries()].map(([reason, ids]) => `- ${reason} (${ids.length}): ${ids.map((id) => `\`${id}\``).join(', ')}`).join('\n');
}
