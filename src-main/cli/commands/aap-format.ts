import type { CoherenceResult, VerificationResult } from '../../../src-shared/aap/results.js';
import type { DriftReport } from '../../aap/drift.js';

/* Plain-text renderings of `silas aap` results; the JSON forms are the results themselves. */

const four = (x: number) => x.toFixed(4);

export function formatVerification(result: VerificationResult): string[] {
  const lines = [`${result.trace_id} against ${result.card_id}: ${result.verified ? 'verified' : 'NOT verified'}, similarity ${four(result.similarity_score)}, recommended action: ${result.recommended_action}`];
  for (const v of result.violations) lines.push(`  violation ${v.type} [${v.severity}]${v.trace_field ? ` at ${v.trace_field}` : ''}: ${v.description}`);
  for (const w of result.warnings) lines.push(`  warning ${w.type}${w.trace_field ? ` at ${w.trace_field}` : ''}: ${w.description}`);
  for (const t of result.verification_metadata.triggers) {
    if (t.matched) lines.push(`  trigger ${t.source} (${t.action}) "${t.condition}": matched, ${t.satisfied ? 'satisfied' : 'NOT satisfied'}`);
  }
  return lines;
}

export function formatCoherence(a: string, b: string, result: CoherenceResult): string[] {
  const { matched, unmatched, conflicts } = result.value_alignment;
  const lines = [
    `${a} and ${b}: score ${four(result.score)}, ${result.compatible ? 'compatible' : 'not compatible'}, ${result.proceed ? 'proceed' : 'do not proceed'}`,
    `  matched: ${matched.length > 0 ? matched.join(', ') : '(none)'}`,
    `  unmatched: ${unmatched.length > 0 ? unmatched.join(', ') : '(none)'}`,
  ];
  for (const c of conflicts) lines.push(`  conflict (${c.conflict_type}): ${c.description}`);
  if (result.proposed_resolution) lines.push(`  proposed resolution: ${result.proposed_resolution.type} (${result.proposed_resolution.reason})`);
  return lines;
}

export function formatDrift(report: DriftReport, traceCount: number): string[] {
  const lines = [`${traceCount} traces, baseline of ${report.baseline_size}, ${report.similarities.length} compared with its centroid, ${report.alerts.length} drift alert${report.alerts.length === 1 ? '' : 's'}`];
  for (const s of report.similarities) lines.push(`  #${s.index} ${s.trace_id}: similarity ${four(s.similarity)}`);
  for (const alert of report.alerts) {
    const a = alert.analysis;
    lines.push(`  ALERT at ${alert.detection_timestamp}: ${a.drift_direction}, similarity ${four(a.similarity_score)} < ${a.threshold} for ${a.sustained_traces} traces (${alert.trace_ids.join(', ')})`);
    for (const i of a.specific_indicators) lines.push(`    ${i.indicator}: ${i.description}`);
  }
  return lines;
}
