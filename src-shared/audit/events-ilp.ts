import { z } from 'zod';
import { defineAuditEvent as ev, int, json, nstr, num, str, strs } from './define.js';

/*
 * The InsightLoop Protocol in the ledger (spec 004 §9.2 item 2, §10.5; docs/ilp.md "Records"):
 * every hop of a composition with its constitutional outcome, every composition, every attention
 * export. The messages themselves are kept by the composition store; the chain holds their SHA-256,
 * so a stored message that was changed no longer matches what the ledger vouched for.
 */

const severity = z.enum(['warning', 'error', 'fatal']).nullable();
const constitutionalStatus = z.enum(['PASSED', 'WARNING', 'VIOLATION']).nullable();

export const ilpEvents = {
  'ilp.request': ev({
    summary: 'One hop of an ILP composition: the request to an agent, its answer and the constitutional outcome (status code, principle, severity), with the SHA-256 of both messages as they crossed the codec.',
    category: 'ilp',
    data: z.strictObject({
      composition_id: str,
      hop_id: str,
      parent: nstr,
      agent: str,
      kind: z.enum(['meta', 'specialist', 'remote']),
      method: str,
      path: str,
      depth: int,
      status: int,
      constitutional_status: constitutionalStatus,
      principle: nstr,
      severity,
      cost_usd: num,
      confidence: num.nullable(),
      slices: strs,
      request_sha256: str,
      response_sha256: str,
    }),
  }),
  'ilp.composition': ev({
    summary: 'An ILP composition ended: the query (as its SHA-256), the answer\'s status and constitutional status, what it cost and how many hops it took; a replay names the composition it replays.',
    category: 'ilp',
    data: z.strictObject({ composition_id: str, query_sha256: str, status: int, constitutional_status: constitutionalStatus, cost_usd: num, hops: int, max_depth: int, replay_of: nstr }),
  }),
  'ilp.attention_export': ev({
    summary: 'The attention trace of a composition was exported (TRACE /export, spec 004 §13.6): the influencers it reported.',
    category: 'ilp',
    data: z.strictObject({ composition_id: str, total_concepts: int, top_influencers: json }),
  }),
} as const;
