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
  'ilp.config_applied': ev({
    summary: 'The owner put an ILP configuration in force (HOME/ilp.yaml, sealed with the owner key): its SHA-256 and how many custom principles, forbidden translations and remote specialists it holds.',
    category: 'ilp',
    data: z.strictObject({ sha256: str, principles: strs, forbidden_translations: int, specialists: strs }),
  }),
  // Knowledge distillation (spec 004 §4.3, Appendix B Level 3; docs/ilp.md "Knowledge distillation"):
  // what the loop learned, what it proposed, and each decision on the slice registry. Texts are
  // named by their SHA-256; the sealed registry holds them.
  'ilp.distillation': ev({
    summary: 'Knowledge distillation ran over episodic memory: the episodes read (and those not trusted), the patterns found, and how many slices it proposed, rejected or skipped.',
    category: 'ilp',
    data: z.strictObject({ episodes_read: int, untrusted_episodes: int, min_frequency: int, patterns: int, proposed: int, rejected: int, skipped: int, cost_usd: num }),
  }),
  'ilp.slice_proposed': ev({
    summary: 'Knowledge distillation proposed a slice version, awaiting the owner\'s decision: the slice, its version and kind, its text\'s SHA-256, the pattern\'s concepts and frequency, and its scores.',
    category: 'ilp',
    data: z.strictObject({ candidate_id: str, slice_id: str, version: int, kind: z.enum(['created', 'updated']), sha256: str, concepts: strs, frequency: int, confidence: num, constitutional_score: num }),
  }),
  'ilp.slice_deployed': ev({
    summary: 'A proposed slice version was deployed: the navigator reads it at once; the version it replaced is kept as the backup.',
    category: 'ilp',
    data: z.strictObject({ candidate_id: str, slice_id: str, version: int, kind: z.enum(['created', 'updated']), sha256: str, superseded_version: int.nullable() }),
  }),
  'ilp.slice_declined': ev({
    summary: 'A proposed slice version was declined: it is kept in the registry, never deployed.',
    category: 'ilp',
    data: z.strictObject({ candidate_id: str, slice_id: str, version: int, sha256: str, reason: nstr }),
  }),
  'ilp.slice_rolled_back': ev({
    summary: 'A learned slice was rolled back: an earlier trusted version\'s text deployed again as a new version, or, with none, the slice removed from the navigator.',
    category: 'ilp',
    data: z.strictObject({ slice_id: str, version: int, kind: z.enum(['rollback', 'removed']), restored_version: int.nullable(), superseded_version: int.nullable(), sha256: nstr }),
  }),
} as const;
