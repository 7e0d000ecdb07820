import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { decisionLabel, decisionRow, decisionTone, shortHash } from './servers-format.js';

describe('servers format', () => {
  it('shortens a prefixed or bare hash to 12 hex characters, and a missing one to a dash', () => {
    expect(shortHash(`sha256:${'ab'.repeat(32)}`)).toBe('abababababab');
    expect(shortHash('0123456789abcdef')).toBe('0123456789ab');
    expect(shortHash(null)).toBe('—');
    expect(shortHash('')).toBe('—');
  });

  it('reads a decision row from an aip.decision entry, defensively', () => {
    const blocked = auditEntry(3, { event: 'aip.decision', data: { tool: 'delete_file', decision: 'BLOCK', violation: true, reason: 'tool is not allowed', failed_rule: 'allowed_tools' } });
    expect(decisionRow(blocked)).toEqual({ id: 'entry-3', ts: blocked.ts, tool: 'delete_file', decision: 'BLOCK', violation: true, detail: 'tool is not allowed' });
    const methodOnly = auditEntry(4, { data: { method: 'resources/read', decision: 'allow', violation: false, reason: 'ignored' } });
    expect(decisionRow(methodOnly)).toMatchObject({ tool: 'resources/read', decision: 'ALLOW', violation: false, detail: null });
    expect(decisionRow(auditEntry(5, { event: 'aip.decision', data: { tool: 7, violation: 'yes' } }))).toMatchObject({ tool: '—', decision: 'UNKNOWN', violation: false });
    expect(decisionRow(auditEntry(6, { data: { tool: 'x', decision: 'BLOCK', violation: true, failed_rule: 'tool_rules[0]' } })).detail).toBe('tool_rules[0]');
  });

  it('gives each decision a tone and words', () => {
    expect(['ALLOW', 'ALLOW_MONITOR', 'ASK', 'BLOCK', 'RATE_LIMITED', 'UNKNOWN'].map(decisionTone)).toEqual(['allow', 'allow', 'ask', 'block', 'block', 'other']);
    expect(['ALLOW', 'ALLOW_MONITOR', 'ASK', 'BLOCK', 'RATE_LIMITED'].map(decisionLabel)).toEqual(['Allow', 'Allow (monitor)', 'Ask', 'Block', 'Rate limited']);
  });
});
