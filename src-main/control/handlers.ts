import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import type { StandingApprovalService } from '../approval/standing/service.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ChainVerifier } from '../audit/chain-verifier.js';
import type { ClientsService } from '../mcp/clients/clients-service.js';
import type { ServersService } from '../mcp/servers/servers-service.js';
import { StartFailureReports } from './start-failure-reports.js';
import type { DecisionQueue } from '../review/decision-queue.js';
import type { PlanKind } from '../review/kinds/plan.js';
import { RequesterOrigins } from '../review/requester-origins.js';
import { AskWithdrawals, cleanDetail, withdrawReasonText } from '../review/ask-withdrawals.js';
import type { ToolCallKind } from '../review/kinds/tool-call.js';
import type { ModelSetupService } from '../silas/stream/model-setup.js';
import type { MemoryService } from '../silas/memory/memory-service.js';
import type { MemoryExports } from '../silas/memory/cockpit-export.js';
import type { MemoryImports } from '../silas/memory/cockpit-import.js';
import type { StreamCaller, StreamChannel } from '../silas/stream/stream-channel.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { CallContext, CallHandlers } from './router.js';
import { validatePolicyDraft } from '../aip/trial/validate-draft.js';
import { applyFormChange } from '../aip/library/policy-form.js';
import type { AlignmentService } from '../alignment/alignment-service.js';
import type { PolicyLibrary } from '../aip/library/policy-library.js';
import type { PolicyTrials } from '../aip/trial/policy-trials.js';
import type { PolicyChecker } from '../aip/trial/policy-checker.js';
import type { CockpitLinks } from './cockpit-links.js';
import { checkReplayHeader, storedComposition, type IlpInspector, type IlpLearning } from './ilp-inspector.js';

export interface HandlerServices {
  audit: AuditLog;
  /**
   * Chain verification in a worker thread (the runtime always has one). Without it (tests of
   * other calls) `audit.verify` verifies in-process, and there is no status or cancel.
   */
  verifier?: Pick<ChainVerifier, 'verify' | 'status' | 'cancel'>;
  /** The one queue of decisions; askers are pointed at their kind, the cockpit answers any card. */
  review: Pick<DecisionQueue, 'ask' | 'decide' | 'view'>;
  kinds: { toolCall: ToolCallKind; plan: PlanKind };
  /** Who asked, stamped on each card from the caller's session (docs/review.md "Sources"); a default one without governed servers in tests. */
  origins?: RequesterOrigins;
  /** The questions each connection waits on, so it can withdraw them and its end withdraws them (docs/review.md "Withdrawn"). */
  withdrawals?: AskWithdrawals;
  servers: Pick<ServersService, 'list'>;
  standing: Pick<StandingApprovalService, 'list' | 'revoke'>;
  clients: Pick<ClientsService, 'list' | 'planWrap' | 'wrap' | 'unwrap'>;
  /** The conversation surface of the Stream (§8.1): scopes belong to the session that opened them. */
  /** Absent in tests of other calls: a conversation call then says the Stream is not running. */
  stream?: StreamChannel;
  models?: ModelSetupService;
  /** The policy test bench (docs/policy-editor.md "Test bench"). */
  trials?: Pick<PolicyTrials, 'tryCall' | 'replay' | 'suite'>;
  /**
   * Drafts checked in a worker thread (the runtime always has one; docs/policy-editor.md, Limits).
   * Without it (tests of other calls) `policies.validate` checks in-process.
   */
  policyChecker?: Pick<PolicyChecker, 'validate'>;
  alignment?: AlignmentService;
  /** The policies the cockpit edits (docs/policy-editor.md). */
  policies?: Pick<PolicyLibrary, 'list' | 'read' | 'save' | 'history' | 'version' | 'restore' | 'adopt' | 'templates' | 'createFromTemplate'>;
  /** The ILP composition inspector (docs/ilp.md "Inspector"). Absent in tests of other calls, and until the runtime serves ILP: its calls then say the ILP service is not running. */
  ilp?: IlpInspector;
  /** Knowledge distillation and the learned slices (docs/ilp.md "Knowledge distillation"); absent like `ilp`. */
  ilpLearning?: IlpLearning;
  /** The owner's memory for the Memory page (docs/silas/chronicle-and-memory.md "Memory page"); absent in tests of other calls. */
  memory?: Pick<MemoryService, 'search' | 'status' | 'update' | 'delete' | 'promote'>;
  /** Export and import from the Memory page (docs/silas/memory-portability.md "From the cockpit"); absent in tests of other calls. */
  memoryExports?: Pick<MemoryExports, 'page'>;
  memoryImports?: Pick<MemoryImports, 'begin' | 'chunk' | 'commit' | 'abort'>;
  /** `silas open`: a fresh cockpit link for an owner-signed challenge; revoking cockpit sessions. Absent in tests of other calls. */
  cockpitLinks?: Pick<CockpitLinks, 'challenge' | 'issue' | 'revokeSessions'>;
  runtimeInfo: () => RuntimeInfo;
  now?: () => Date;
}

/** Thin handlers (docs/architecture.md §4.3): arguments are parsed and the caller's access checked by the router; each calls one service. */
export function createHandlers(services: HandlerServices): CallHandlers {
  const now = services.now ?? (() => new Date());
  const { review, kinds } = services;
  const origins = services.origins ?? new RequesterOrigins();
  const withdrawals = services.withdrawals ?? new AskWithdrawals();
  const startFailures = new StartFailureReports(services.audit);
  return {
    'runtime.info': () => services.runtimeInfo(),
    'audit.list': ({ before, limit }) => services.audit.list(before, limit),
    'audit.verify': ({ mode }) =>
      services.verifier?.verify(mode) ?? inProcessVerify(services.audit, now),
    'audit.verifyStatus': () => services.verifier?.status() ?? { last: null, running: null, error: null },
    'audit.cancelVerify': () => ({ cancelled: services.verifier?.cancel() ?? false }),
    'approvals.request': (args, ctx) => withdrawals.track(ctx, args, (signal) => review.ask(kinds.toolCall, args, { origin: origins.toolCall(ctx, args.server), signal })),
    'approvals.withdraw': ({ reason, detail, ...key }, ctx) => ({ withdrawn: withdrawals.withdraw(ctx, key, withdrawReasonText(reason, cleanDetail(detail))) }),
    // A plan's card leaves Review when the connection that asked (`silas run`) closes: nobody would run it.
    'plans.requestApproval': (args, ctx) => review.ask(kinds.plan, args, { origin: origins.plan(ctx), ...(ctx.ended ? { signal: ctx.ended } : {}) }),
    'cockpit.linkChallenge': () => need(services.cockpitLinks, 'issuing cockpit links').challenge(),
    'cockpit.issueLink': (args, ctx) => need(services.cockpitLinks, 'issuing cockpit links').issue(args, ctx),
    'cockpit.revokeSessions': (_args, ctx) => need(services.cockpitLinks, 'revoking cockpit sessions').revokeSessions(ctx),
    'review.list': (page) => review.view(page),
    'review.decide': ({ id, choice }) => review.decide(id, choice),
    'approvals.listStanding': () => ({ standing: services.standing.list().map(({ signature: _signature, revokedAt: _revokedAt, ...view }) => view) }),
    'approvals.revokeStanding': ({ id }) => ({ id: services.standing.revoke(id).id }),
    'servers.list': () => ({ servers: services.servers.list() }),
    // A claim of a process holding the ask credential, recorded as such and capped (docs/mcp-proxy.md "Starting under any client").
    'servers.reportStartFailure': (report, ctx) => startFailures.record(report, ctx),
    'clients.list': () => ({ clients: services.clients.list() }),
    'clients.planWrap': (args) => services.clients.planWrap(args),
    'clients.wrap': (args) => services.clients.wrap(args),
    'clients.unwrap': ({ client }) => services.clients.unwrap({ client }),
    'stream.open': (args, ctx) => need(services.stream, 'the Stream').open(args, callerOf(ctx)),
    'stream.send': (args, ctx) => need(services.stream, 'the Stream').send(args, callerOf(ctx)),
    'stream.cancel': ({ scope }, ctx) => need(services.stream, 'the Stream').cancel(scope, callerOf(ctx)),
    'stream.context': ({ scope }, ctx) => need(services.stream, 'the Stream').context(scope, callerOf(ctx)),
    'stream.approve': (args, ctx) => need(services.stream, 'the Stream').approve(args, callerOf(ctx)),
    'stream.subscribe': (args, ctx) => need(services.stream, 'the Stream').subscribe(args, callerOf(ctx)),
    'stream.unsubscribe': (args, ctx) => need(services.stream, 'the Stream').unsubscribe(args, callerOf(ctx)),
    'models.status': () => need(services.models, 'model setup').status(),
    'models.configure': (args) => need(services.models, 'model setup').configure(args),
    'models.test': ({ role }) => need(services.models, 'model setup').test(role),
    'policies.validate': ({ text }) => services.policyChecker?.validate(text) ?? validatePolicyDraft(text),
    'policies.edit': ({ text, change }) => applyFormChange(text, change),
    'policies.try': ({ text, path, call }) => need(services.trials, 'the policy test bench').tryCall(text, path, { name: 'typed', ...call, args: call.args }),
    'policies.replay': ({ text, path, server, last }) => need(services.trials, 'the policy test bench').replay(text, path, server, last),
    'policies.suite': ({ text, path }) => need(services.trials, 'the policy test bench').suite(text, path),
    'policies.list': async () => ({ policies: await need(services.policies, 'the policy library').list() }),
    'policies.read': ({ path }) => need(services.policies, 'the policy library').read(path),
    'policies.save': ({ path, text, expected_sha256 }) => need(services.policies, 'the policy library').save(path, text, expected_sha256),
    'policies.history': ({ path, limit }) => ({ versions: need(services.policies, 'the policy library').history(path, limit) }),
    'policies.version': ({ id }) => need(services.policies, 'the policy library').version(id),
    'policies.restore': ({ id }) => need(services.policies, 'the policy library').restore(id),
    'policies.adopt': ({ path }) => need(services.policies, 'the policy library').adopt(path),
    'alignment.agents': () => need(services.alignment, 'alignment').agents(),
    'alignment.series': ({ agentId, afterSeq, limit, newest }) => need(services.alignment, 'alignment').series(agentId, afterSeq, limit, newest),
    'alignment.violations': ({ agentId, limit }) => need(services.alignment, 'alignment').violations(agentId, limit),
    'alignment.trace': ({ traceId }) => need(services.alignment, 'alignment').trace(traceId),
    'alignment.card': ({ agentId }) => need(services.alignment, 'alignment').card(agentId),
    'alignment.validateCard': ({ agentId, text }) => need(services.alignment, 'alignment').validateCard(agentId, text),
    'alignment.saveCard': ({ agentId, text }) => need(services.alignment, 'alignment').saveCard(agentId, text),
    'alignment.useDerivedCard': ({ agentId }) => need(services.alignment, 'alignment').useDerivedCard(agentId),
    'alignment.fleet': () => need(services.alignment, 'alignment').fleet(),
    'ilp.list': (args) => need(services.ilp, 'the ILP service').list(args),
    'ilp.get': ({ id }) => storedComposition(need(services.ilp, 'the ILP service').get(id), id),
    'ilp.replay': (args) => {
      const ilp = need(services.ilp, 'the ILP service');
      checkReplayHeader(args.constitutional_header);
      return ilp.replay(args);
    },
    'ilp.distill': (args) => need(services.ilpLearning, 'the ILP service').distill(args),
    'ilp.slices': () => need(services.ilpLearning, 'the ILP service').slices(),
    'ilp.rollback': (args) => need(services.ilpLearning, 'the ILP service').rollback(args),
    'memory.search': (args) => need(services.memory, 'Silas memory').search(args),
    'memory.status': () => need(services.memory, 'Silas memory').status(),
    'memory.update': (args) => need(services.memory, 'Silas memory').update(args),
    'memory.delete': ({ memoryId }) => need(services.memory, 'Silas memory').delete(memoryId),
    'memory.promote': ({ memoryId, reason }) => need(services.memory, 'Silas memory').promote(memoryId, reason),
    'memory.exportPage': (args) => need(services.memoryExports, 'Silas memory').page(args),
    'memory.importBegin': (args) => need(services.memoryImports, 'Silas memory').begin(args),
    'memory.importChunk': (args) => need(services.memoryImports, 'Silas memory').chunk(args),
    'memory.importCommit': (args) => need(services.memoryImports, 'Silas memory').commit(args),
    'memory.importAbort': ({ uploadId }) => need(services.memoryImports, 'Silas memory').abort(uploadId),
    'policies.templates': () => ({ templates: need(services.policies, 'the policy library').templates() }),
    'policies.create': ({ name, template }) => need(services.policies, 'the policy library').createFromTemplate(name, template),
    'secrets.store': ({ name, value }, ctx) => {
      // A secret never rides the WebSocket (§8.1): the browser cockpit POSTs it to /secrets/NAME.
      if (ctx.transport === 'websocket') throw new SilasError(ErrorCode.Unauthorized, 'secrets are not accepted over the WebSocket; the cockpit sends them with POST /secrets/NAME');
      return need(services.models, 'model setup').storeSecret(name, value, ctx.transport);
    },
  };
}

/** A conversation needs a session to send its events to; an in-process caller has a fixed one. */
function callerOf(ctx: CallContext): StreamCaller {
  return { session: ctx.session ?? `session-${ctx.transport}`, transport: ctx.transport };
}

function need<T>(service: T | undefined, what: string): T {
  if (service === undefined) throw new SilasError(ErrorCode.Unavailable, `${what} is not running in this runtime; restart Silas`);
  return service;
}

function inProcessVerify(audit: AuditLog, now: () => Date) {
  const result = audit.verifyChain();
  return { ...result, mode: 'full' as const, fromIndex: 0, checked: result.entries, verifiedUpTo: null, verifiedAt: now().toISOString() };
}
