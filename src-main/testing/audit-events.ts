import { z } from 'zod';
import { defineAuditEvent, type AuditCatalogue } from '../../src-shared/audit/define.js';
import { auditEvents } from '../../src-shared/audit/events.js';

// Events that only tests write: ledger mechanics (chain, tamper, concurrency) need entries
// about nothing in particular. They live here, not in the app's catalogue, so the app can
// never write them; a test ledger accepts them besides every app event.
const filler = (summary: string) => defineAuditEvent({ summary, category: 'operator', data: z.looseObject({}) });

export const testAuditEvents = {
  ...auditEvents,
  'test.entry': filler('A numbered entry of a test chain.'),
  'test.first': filler('The first of a few entries.'),
  'test.second': filler('The second of a few entries.'),
  'test.third': filler('The third of a few entries.'),
  'test.ok': filler('An entry that is accepted.'),
  'test.fine': filler('An entry in a batch with a refused one.'),
  'test.bad': filler('An entry with data that is not an object.'),
  'test.genesis': filler('The first entry of a test ledger.'),
  'test.worker': filler('An entry from a worker process.'),
  'test.after_crash': filler('An entry appended after a writer crashed.'),
  'control.test_event': filler('An entry the control-plane tests watch for.'),
} as const satisfies AuditCatalogue;

export type TestAuditEvents = typeof testAuditEvents;
