import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuditEventName } from '../schemas/audit.js';
import { AUDIT_CATEGORIES, auditCategory, auditDataProblem, auditEventAliases, auditEvents, canonicalAuditEvent, followsAuditStyle, legacyNames } from './events.js';

const names = Object.keys(auditEvents) as (keyof typeof auditEvents)[];
const problem = (event: keyof typeof auditEvents, data: unknown) => auditDataProblem(event, auditEvents[event], data);

describe('the audit event catalogue', () => {
  it('names every event in the one style, domain.snake_case', () => {
    expect(names.length).toBeGreaterThan(90);
    expect(names.filter((name) => !followsAuditStyle(name))).toEqual([]);
    expect(names.filter((name) => !AuditEventName.safeParse(name).success)).toEqual([]);
  });

  it('tells the outliers from the style', () => {
    expect(['silas.plan_approved', 'silas.plan_approval_requested', 'Approvals.requested', 'approvals', 'unknown.event', 'mcp.tool-pinned'].filter((n) => followsAuditStyle(n))).toEqual([]);
  });

  it('declares each data schema strict or loose, never silently dropping fields', () => {
    for (const name of names) {
      const schema = auditEvents[name].data;
      expect(schema, name).toBeInstanceOf(z.ZodObject);
      expect((schema as z.ZodObject)._zod.def.catchall, name).toBeDefined();
    }
  });

  it('gives every event a summary and a known category', () => {
    for (const name of names) {
      expect(auditEvents[name].summary.length, name).toBeGreaterThan(10);
      expect(AUDIT_CATEGORIES, name).toContain(auditEvents[name].category);
    }
  });
});

describe('malformed data', () => {
  it('is refused with the event and the field: a wrong type', () => {
    expect(problem('approvals.requested', { approval_id: 'a', server: 's', tool: 5, args_hash: 'h', request_id: 1, session_id: 's', rule: 'r' })).toMatch(
      /^audit event "approvals\.requested": data\.tool: /,
    );
  });

  it('is refused with the event and the field: a missing field', () => {
    expect(problem('runtime.started', { mode: 'headless', pid: 1 })).toMatch(/^audit event "runtime\.started": data\.version: /);
  });

  it('is refused with the event and the field: an extra field where the shape is strict', () => {
    expect(problem('runtime.stopped', { reason: 'signal', exit: 1 })).toMatch(/^audit event "runtime\.stopped": data\.exit: not a field of this event/);
    expect(problem('runtime.stopped', { reason: 'signal', a: 1, b: 2 })).toMatch(/data: unexpected fields a, b/);
  });

  it('is refused in nested values and enumerations', () => {
    expect(problem('aip.dlp', { server: 's', session_id: 'x', direction: 'upstream', source: 'args', rules: [{ rule: 'r', count: 'many' }] })).toMatch(/data\.rules\.0\.count: /);
    expect(problem('aip.decision', { direction: 'sideways', decision: 'ALLOW', policy_mode: 'enforce', violation: false })).toMatch(/data\.direction: /);
  });

  it('accepts what the writers write, extra fields included where the shape is loose', () => {
    expect(problem('runtime.stopped', { reason: 'signal' })).toBeNull();
    expect(problem('aip.decision', { direction: 'upstream', decision: 'ALLOW', policy_mode: 'enforce', violation: false, server: 'files', approval: 'standing' })).toBeNull();
  });
});

describe('names an older version wrote', () => {
  it('map to a catalogue name, and are not catalogue names themselves', () => {
    for (const [old, now] of Object.entries(legacyNames)) {
      expect(names, old).not.toContain(old);
      expect(names, old).toContain(now);
      expect(canonicalAuditEvent(old)).toBe(now);
    }
  });

  it('keep the category of their name now', () => {
    expect(auditCategory('silas.plan_approved')).toBe('plan_approval');
    expect(auditCategory('silas.plan_denied')).toBe(auditCategory('silas.plan_approval.denied'));
    expect(auditCategory('made.up')).toBe('other');
  });

  it('are listed among the aliases readers accept', () => {
    expect(auditEventAliases('silas.plan_approval.approved')).toEqual(['silas.plan_approval.approved', 'silas.plan_approved']);
    expect(auditEventAliases('approvals.approved')).toEqual(['approvals.approved']);
  });
});
