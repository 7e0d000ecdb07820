import { z } from 'zod';
import { ChainHead, ChainVerified, ChainVerifyStatus, ListedAuditEntry, VerifyMode } from '../schemas/audit.js';
import { StandingApprovalView, ToolCallApprovalRequest, ToolCallWithdrawArgs } from '../schemas/approval.js';
import { RuntimeInfo } from '../schemas/runtime.js';
import { GovernedServer, ProxyStartFailureReport } from '../schemas/servers.js';
import { AgentClientView, ClientUnwrapResult, ClientWrapApplyArgs, ClientWrapArgs, ClientWrapPlanView, ClientWrapResult } from '../schemas/clients.js';
import { PlanApprovalRequest } from '../schemas/plan-approval.js';
import { CockpitLinkArgs, CockpitLinkChallenge, CockpitLinkResult, CockpitRevokeResult } from '../schemas/cockpit-link.js';
import { DecisionAnswer, ReviewDecideArgs, ReviewDecideResult, ReviewListArgs, ReviewQueueView } from '../schemas/review.js';
import { StreamApproveArgs, StreamSubscribeArgs, StreamSubscribeResult, StreamUnsubscribeArgs, StreamUnsubscribeResult, SecretStoreArgs, ModelsConfigureArgs, ModelsStatus, ModelsTestResult, StreamCancelResult, StreamContextView, StreamOpenArgs, StreamOpenResult, StreamScopeId, StreamSendArgs, StreamSendResult } from '../schemas/stream.js';
import { ModelRole } from '../llm/config.js';
import { AlignmentAgentsResult, AlignmentCardArgs, AlignmentCardView, AlignmentCardTextArgs, AlignmentFleetResult, AlignmentSaveCardResult, AlignmentSeries, AlignmentSeriesArgs, AlignmentTraceArgs, AlignmentTraceView, AlignmentValidateCardResult, AlignmentViolationsArgs, AlignmentViolationView } from '../schemas/alignment.js';
import { IlpCompositionView, IlpDistillArgs, IlpDistillResult, IlpGetArgs, IlpListArgs, IlpListResult, IlpReplayArgs, IlpReplayResult, IlpRollbackArgs, IlpRollbackResult, IlpSlicesResult } from '../schemas/ilp.js';
import { PolicyEditArgs, PolicyEditResult, PolicyReplayArgs, PolicyReplayResult, PolicySuiteArgs, PolicySuiteResult, PolicyTryArgs, PolicyTryResult, PolicyFileStatus, PolicyHistoryArgs, PolicyPathArgs, PolicySaveArgs, PolicySaved, PolicyValidateArgs, PolicyValidateResult, PolicyVersionArgs, PolicyVersionView, PolicyTemplateView, PolicyCreateArgs, PolicyCreated } from '../schemas/policy-editor.js';
import { MemoryExportPage, MemoryExportPageArgs, MemoryId, MemoryImportBeginArgs, MemoryImportBegun, MemoryImportChunkArgs, MemoryImportCommitArgs, MemoryImportResult, MemoryPromoteArgs, MemoryPromoteResult, MemorySearchArgs, MemorySearchResult, MemoryStatus, MemoryUpdateArgs, MemoryUploadId } from '../schemas/memory.js';
import { MemoryItem } from '../silas/memory.js';
import { defineCall } from './define.js';

const AUDIT_PAGE_MAX = 1000;

/**
 * Every control-plane call, declared once (docs/architecture.md §4.1). Handlers (src-main/control), the preload bridge
 * and the renderer client are all typed from this object; `access` is the one place that says
 * who may call it (the router enforces it). `clients.planWrap` writes nothing but needs
 * `decide`: its preview is the first step of rewriting a client's configuration.
 */
export const calls = {
  'runtime.info': defineCall({
    access: 'read',
    summary: 'Version, mode, data home and owner key fingerprint of the running runtime.',
    args: z.object({}).strict(),
    result: RuntimeInfo,
  }),
  'audit.list': defineCall({
    access: 'read',
    summary:
      'A page of audit entries, newest first, strictly older than `before` when given (keyset paging by index). `total` is the chain length, head index + 1 (indexes are dense from 0), not a COUNT(*) of the rows.',
    args: z
      .object({
        before: z.number().int().nonnegative().optional(),
        limit: z.number().int().min(1).max(AUDIT_PAGE_MAX).default(200),
      })
      .strict(),
    result: z.object({
      entries: z.array(ListedAuditEntry),
      total: z.number().int().nonnegative(),
      head: ChainHead.nullable(),
    }),
  }),
  'audit.verify': defineCall({
    access: 'read',
    summary:
      "Verify the hash chain in the runtime's worker thread (never on its event loop): `new` (the default) checks what was appended since the last verified entry, `full` every entry and checkpoint from genesis. Joins the run in progress; resolves with the run's result (progress comes as `audit.verifyProgress`).",
    args: z.object({ mode: VerifyMode.default('new') }).strict(),
    // The run's details are optional: a verdict alone (what this call returned before) still parses.
    result: ChainVerified.partial({ mode: true, fromIndex: true, checked: true, verifiedUpTo: true }),
  }),
  'audit.verifyStatus': defineCall({
    access: 'read',
    summary: 'At once: the last verification result, the run in progress (if any) and why the last run gave no verdict.',
    args: z.object({}).strict(),
    result: ChainVerifyStatus,
  }),
  'audit.cancelVerify': defineCall({
    access: 'read',
    summary: 'Stops the verification in progress (it only reads, so nothing is left half-written); the last result stays as it was.',
    args: z.object({}).strict(),
    result: z.object({ cancelled: z.boolean() }),
  }),
  'approvals.request': defineCall({
    access: 'ask',
    summary: 'A proxy asks the person about one tool call; approving returns an owner-signed single_step token bound to the exact call; resolves when they decide or the request times out.',
    args: ToolCallApprovalRequest,
    result: DecisionAnswer,
  }),
  'approvals.withdraw': defineCall({
    access: 'ask',
    summary:
      "A proxy withdraws a question it asked on this connection (same sessionId and requestId): the agent cancelled the call or went away, so its card leaves Review at once and a late decision is refused. A connection can withdraw only its own questions; `withdrawn` is false when none was waiting.",
    args: ToolCallWithdrawArgs,
    result: z.object({ withdrawn: z.boolean() }),
  }),
  'plans.requestApproval': defineCall({
    access: 'ask',
    summary: '`silas run` asks the person to approve one exact plan; approving returns an owner-signed token bound to its plan hash.',
    args: PlanApprovalRequest,
    result: DecisionAnswer,
  }),
  'cockpit.linkChallenge': defineCall({
    access: 'ask',
    summary: '`silas open`: a one-time challenge (single use, expires in a minute) to sign with the home\'s owner key for a fresh cockpit link.',
    args: z.object({}).strict(),
    result: CockpitLinkChallenge,
  }),
  'cockpit.issueLink': defineCall({
    access: 'ask',
    summary:
      "`silas open`: the cockpit link (or, on the desktop, its window brought to the front) for a challenge signed with the keyring's owner key; the signature is the authority, so no capability is added (docs/control-plane.md). Refusals are audited.",
    args: CockpitLinkArgs,
    result: CockpitLinkResult,
  }),
  'cockpit.revokeSessions': defineCall({
    access: 'decide',
    summary:
      "Signs out every other cockpit tab and link: every cockpit credential but the caller's own (all of them from the desktop window, which needs none) stops authenticating, and sessions that used one are closed with 4001. Counts are audited (from the cockpit only).",
    args: z.object({}).strict(),
    result: CockpitRevokeResult,
  }),
  'review.list': defineCall({
    access: 'read',
    summary:
      'Decisions waiting for the person (tool calls, plans, changed tool definitions) as §0.5.3 cards, a page at a time in source order (every source\'s first card before any source\'s second), with the total and the `seq` of the last `review.changed` delta included.',
    args: ReviewListArgs,
    result: ReviewQueueView,
  }),
  'review.decide': defineCall({
    access: 'decide',
    summary: "The person answers one waiting decision with one of its card's choices (from the cockpit only).",
    args: ReviewDecideArgs,
    result: ReviewDecideResult,
  }),
  'approvals.listStanding': defineCall({
    access: 'read',
    summary: 'Standing "always allow" approvals (per server, tool and exact arguments), for the Policies page.',
    args: z.object({}).strict(),
    result: z.object({ standing: z.array(StandingApprovalView) }),
  }),
  'approvals.revokeStanding': defineCall({
    access: 'decide',
    summary: 'Revoke one standing approval; running proxies ask again from the next call (from the cockpit only).',
    args: z.object({ id: z.string().min(1).max(100) }).strict(),
    result: z.object({ id: z.string() }),
  }),
  'servers.list': defineCall({
    access: 'read',
    summary: 'MCP servers governed by silas proxy: last start, policy, pinned tools (with pending changes) and recent decisions.',
    args: z.object({}).strict(),
    result: z.object({ servers: z.array(GovernedServer) }),
  }),
  'servers.reportStartFailure': defineCall({
    access: 'ask',
    summary:
      'A proxy that could not start (it cannot reach the OS keyring, so it cannot write the ledger) reports why, for the Servers page. A claim by a process holding only the ask credential: recorded as reported by the proxy and shown as plain text (docs/mcp-proxy.md "Starting under any client").',
    args: ProxyStartFailureReport,
    result: z.object({ recorded: z.literal(true) }),
  }),
  'clients.list': defineCall({
    access: 'read',
    summary: "Every known agent client's MCP configuration file (found or not) and its servers: transport, wrapped or not, policy, why not wrappable.",
    args: z.object({}).strict(),
    result: z.object({ clients: z.array(AgentClientView) }),
  }),
  'clients.planWrap': defineCall({
    access: 'decide',
    summary: "Preview wrapping a client's stdio servers behind silas proxy: the diff and the entries that would change. Writes nothing.",
    args: ClientWrapArgs,
    result: ClientWrapPlanView,
  }),
  'clients.wrap': defineCall({
    access: 'decide',
    summary: 'Wrap the previewed servers: applies only while the plan still has `expectedDiffHash`; keeps a backup (from the cockpit only).',
    args: ClientWrapApplyArgs,
    result: ClientWrapResult,
  }),
  'clients.unwrap': defineCall({
    access: 'decide',
    summary: "Restore a client's configuration byte for byte from the backup of its wrap (from the cockpit only).",
    args: z.object({ client: z.string().min(1).max(100) }).strict(),
    result: ClientUnwrapResult,
  }),
  'stream.open': defineCall({
    access: 'converse',
    summary:
      'Open a conversation scope of this session with Silas (§5.1, §8.1), or resume one with its key after a reload or a restart: the scope id, its resume key, the recent history and whether a model is configured. Events of the scope (`stream.event`) go to this session only.',
    args: StreamOpenArgs,
    result: StreamOpenResult,
  }),
  'stream.send': defineCall({
    access: 'converse',
    summary: 'Send a message to Silas in a scope this session opened. Resolves once queued (turns of one scope run one at a time); the answer comes as `stream.event`s.',
    args: StreamSendArgs,
    result: StreamSendResult,
  }),
  'stream.cancel': defineCall({
    access: 'converse',
    summary: "Stop the scope's running turn (its model call is aborted) and drop its queued ones.",
    args: z.object({ scope: StreamScopeId }).strict(),
    result: StreamCancelResult,
  }),
  'stream.context': defineCall({
    access: 'converse',
    summary:
      "What this session's conversation holds in its context and why (§5.7 context_inspection): per zone each item's id, kind, source, taint, tokens, relevance, pinned and masked flags and turn, the zone budgets under the active profile, and the last eviction (tier, what, why). Read-only.",
    args: z.object({ scope: StreamScopeId }).strict(),
    result: StreamContextView,
  }),
  'stream.subscribe': defineCall({
    access: 'converse',
    summary:
      "Keeps a live resource in this session's conversation context (§3.5 ContextSubscription, §4.3 subscribe): a file (absolute path), a file's lines (`path:start-end`) or a memory search, read again at each turn; or activates a deactivated one again (`reactivate`). Files are read as external content. From the cockpit only for files.",
    args: StreamSubscribeArgs,
    result: StreamSubscribeResult,
  }),
  'stream.unsubscribe': defineCall({
    access: 'converse',
    summary: "Deactivates a context subscription of this session's conversation (§4.3 unsubscribe: kept, zero tokens, can be activated again), or removes it with `remove`.",
    args: StreamUnsubscribeArgs,
    result: StreamUnsubscribeResult,
  }),
  'stream.approve': defineCall({
    access: 'converse',
    summary:
      "Answers a plan of this session's scope that waits for approval with an owner-signed token made at the terminal (`silas chat --approve-here`): its card leaves Review, and the executor verifies and consumes the token like any other (a forged or mismatched one runs nothing).",
    args: StreamApproveArgs,
    result: z.object({ accepted: z.boolean(), reason: z.string().max(500) }).strict(),
  }),
  'policies.validate': defineCall({
    access: 'read',
    summary: "Checks a policy draft with the runtime's own loader (every AgentPolicy field, §3) and returns each error and warning at its line and column; nothing is written.",
    args: PolicyValidateArgs,
    result: PolicyValidateResult,
  }),
  'policies.edit': defineCall({
    access: 'read',
    summary: "The form view: one change (mode, an allowed tool, a protected path, a tool's action, a standing approval as a rule) applied to the draft's text as a splice, comments and formatting kept byte for byte. Returns the new draft; nothing is written.",
    args: PolicyEditArgs,
    result: PolicyEditResult,
  }),
  'policies.try': defineCall({
    access: 'read',
    summary: 'The test bench: one tools/call typed by hand, under the draft and under the policy in force at `path`: decision, deciding rule, DLP matches, rate-limit state.',
    args: PolicyTryArgs,
    result: PolicyTryResult,
  }),
  'policies.replay': defineCall({
    access: 'read',
    summary: "The test bench: a server's last N recorded tool calls (arguments as the ledger stores them, redacted where they were) under the draft and the policy in force, each marked when its decision changes.",
    args: PolicyReplayArgs,
    result: PolicyReplayResult,
  }),
  'policies.suite': defineCall({
    access: 'read',
    summary: 'The test bench: the suite kept beside the policy (NAME.suite.json) run against the draft, with each expectation passed or failed.',
    args: PolicySuiteArgs,
    result: PolicySuiteResult,
  }),
  'policies.list': defineCall({
    access: 'read',
    summary: 'The policies of this installation (those its wrapped servers run under, and HOME/policies): whether each loads, its signature (owner, unsigned, invalid), hash, saved versions, and whether it was changed outside the cockpit.',
    args: z.object({}).strict(),
    result: z.object({ policies: z.array(PolicyFileStatus) }).strict(),
  }),
  'policies.read': defineCall({
    access: 'read',
    summary: "One policy's text and status, for the editor.",
    args: PolicyPathArgs,
    result: z.object({ status: PolicyFileStatus, text: z.string() }).strict(),
  }),
  'policies.save': defineCall({
    access: 'decide',
    summary: 'Signs a draft that loads with the owner key (§5.2), writes it atomically and keeps it as a new version; running proxies hot-reload it. Refused when the draft has errors, when the file changed since it was read, or for a path that is not a policy of this installation.',
    args: PolicySaveArgs,
    result: PolicySaved,
  }),
  'policies.history': defineCall({
    access: 'read',
    summary: "A policy's saved versions, newest first, each with its hash, signer, time and whether its stored text is still intact.",
    args: PolicyHistoryArgs,
    result: z.object({ versions: z.array(PolicyVersionView) }).strict(),
  }),
  'policies.version': defineCall({
    access: 'read',
    summary: 'The text of one saved version (to diff against another, or the draft).',
    args: PolicyVersionArgs,
    result: z.object({ version: PolicyVersionView, text: z.string() }).strict(),
  }),
  'policies.restore': defineCall({
    access: 'decide',
    summary: 'Writes an earlier version again, signed now, as a new version (audited); a corrupt version is refused.',
    args: PolicyVersionArgs,
    result: PolicySaved,
  }),
  'policies.adopt': defineCall({
    access: 'decide',
    summary: 'Takes a policy edited outside the cockpit as it is: signs it with the owner key and keeps it as a version.',
    args: PolicyPathArgs,
    result: PolicySaved,
  }),
  'policies.templates': defineCall({
    access: 'read',
    summary: 'The gallery of starting policies (filesystem read-only, filesystem with approvals for writes, shell with approvals, GitHub, browser automation), each with its text and the size of its test suite.',
    args: z.object({}).strict(),
    result: z.object({ templates: z.array(PolicyTemplateView) }).strict(),
  }),
  'policies.create': defineCall({
    access: 'decide',
    summary: "A new policy HOME/policies/NAME.yaml from a template: signed with the owner key as its first version, with the template's suite beside it (NAME.suite.json). Refused when either file exists.",
    args: PolicyCreateArgs,
    result: PolicyCreated,
  }),
  'alignment.agents': defineCall({
    access: 'read',
    summary: "The governed agents (each proxied MCP server, and Silas) with their Alignment Card in force and their trace, violation, escalation and drift-alert counts.",
    args: z.object({}).strict(),
    result: AlignmentAgentsResult,
  }),
  'alignment.series': defineCall({
    access: 'read',
    summary: "An agent's AP-Traces as columns for the charts: time, similarity to the card and to the drift baseline, escalations, verification, alerts, and value usage.",
    args: AlignmentSeriesArgs,
    result: AlignmentSeries,
  }),
  'alignment.violations': defineCall({
    access: 'read',
    summary: "An agent's newest traces that failed verification, with the violation types.",
    args: AlignmentViolationsArgs,
    result: z.object({ violations: z.array(AlignmentViolationView) }).strict(),
  }),
  'alignment.trace': defineCall({
    access: 'read',
    summary: 'One AP-Trace with the card it names, each verification check and its outcome, its signature and whether it is the one the hash chain holds.',
    args: AlignmentTraceArgs,
    result: AlignmentTraceView,
  }),
  'alignment.card': defineCall({
    access: 'read',
    summary: "An agent's Alignment Card in force, whether it was derived from the policy or edited, and its signature.",
    args: AlignmentCardArgs,
    result: AlignmentCardView,
  }),
  'alignment.validateCard': defineCall({
    access: 'read',
    summary: "Checks an edited card (JSON text) as it is typed: every problem with its JSON path and what was expected (AAP §4, §4.6 conditions included); nothing is saved.",
    args: AlignmentCardTextArgs,
    result: AlignmentValidateCardResult,
  }),
  'alignment.saveCard': defineCall({
    access: 'decide',
    summary: "Puts an edited card in force for an agent, signed with the owner key; a card that does not validate is refused (audited) and the card in force stays.",
    args: AlignmentCardTextArgs,
    result: AlignmentSaveCardResult,
  }),
  'alignment.useDerivedCard': defineCall({
    access: 'decide',
    summary: "Puts in force the card derived from the agent's owner-signed policy (how the person ends a refused card's failed-closed state); refused when the policy is not signed.",
    args: AlignmentCardArgs,
    result: AlignmentSaveCardResult,
  }),
  'alignment.fleet': defineCall({
    access: 'read',
    summary: 'Value coherence between every pair of governed agents (AAP §6.4): the matrix, conflicts, outliers and clusters.',
    args: z.object({}).strict(),
    result: AlignmentFleetResult,
  }),
  'ilp.list': defineCall({
    access: 'read',
    summary:
      'Stored ILP compositions (spec 004 §4.2: one query answered by the meta-agent through hops to specialists), newest first, a page at a time strictly older than `before` (keyset paging); each with its status, constitutional status, cost, hops and whether its stored row passed its seal.',
    args: IlpListArgs,
    result: IlpListResult,
  }),
  'ilp.get': defineCall({
    access: 'read',
    summary: 'One stored composition for the inspector: every hop with its agent, depth, cost, confidence, the enforcer\'s outcome on the edge into it, the slices it loaded and its raw ILP messages; the answer; the attention influencers (spec 004 §6.4, §13.6).',
    args: IlpGetArgs,
    result: IlpCompositionView,
  }),
  'ilp.replay': defineCall({
    access: 'decide',
    summary:
      "Sends a stored composition's query again under an edited Constitutional-Header (JSON text, spec 004 §6.1) and stores the result as a new composition that names the one it replays. Needs decide: it calls models and spends their budget.",
    args: IlpReplayArgs,
    result: IlpReplayResult,
  }),
  'ilp.distill': defineCall({
    access: 'decide',
    summary:
      'Knowledge distillation (spec 004 §4.3): patterns found in the trusted episodes of episodic memory, a slice written for each by the planner model and checked (slice format, injection screen, constitutional enforcer); each that passes waits in Review as an ilp_slice card, nothing is deployed. Needs decide: it calls models and spends their budget.',
    args: IlpDistillArgs,
    result: IlpDistillResult,
  }),
  'ilp.slices': defineCall({
    access: 'read',
    summary: 'The slices distillation learned, each with the version the navigator reads now and its history (proposed, deployed, declined, superseded, rolled back), every version marked trusted or not.',
    args: z.object({}).strict(),
    result: IlpSlicesResult,
  }),
  'ilp.rollback': defineCall({
    access: 'decide',
    summary: 'Puts a learned slice back to a version deployed before (the one before the version in force by default), or removes a slice that has none; the navigator reads it at once.',
    args: IlpRollbackArgs,
    result: IlpRollbackResult,
  }),
  'memory.search': defineCall({
    access: 'read',
    summary: "Searches the owner's memory (spec 002 §6): the active lane by words, meaning and time together, the raw lane (what was said, kept for explicit search only) by words; filtered by type, trust, taint and time.",
    args: MemorySearchArgs,
    result: MemorySearchResult,
  }),
  'memory.status': defineCall({
    access: 'read',
    summary: "How much the owner's memory holds (active, raw, verified, constitutional) and whether recall by meaning is ready: the embedder, its dimensions, memories still waiting for a vector, and why it is off if it is.",
    args: z.object({}).strict(),
    result: MemoryStatus,
  }),
  'memory.update': defineCall({
    access: 'decide',
    summary: 'Edits a working memory (content, type, tags). A verified memory changes only through a signed decision and a constitutional one never at runtime: both are refused and audited (§3.8).',
    args: MemoryUpdateArgs,
    result: MemoryItem,
  }),
  'memory.delete': defineCall({
    access: 'decide',
    summary: 'Deletes a working memory; verified and constitutional memories are refused and audited (§3.8).',
    args: MemoryId.strict(),
    result: z.object({ deleted: z.literal(true) }),
  }),
  'memory.promote': defineCall({
    access: 'decide',
    summary: 'Asks to verify a working memory: a memory_promotion card waits in Review, and the memory becomes verified only when the owner signs it (§3.8).',
    args: MemoryPromoteArgs,
    result: MemoryPromoteResult,
  }),
  // Export and import hand out or change the whole memory, the raw lane included: decide (docs/silas/memory-portability.md "From the cockpit").
  'memory.exportPage': defineCall({
    access: 'decide',
    summary:
      "One page of a memory bundle, every scope (spec 002 §4.2.3, §6.5): cursor null starts an export (one snapshot for every page), each page's `next` continues it; the last page (`next` null) has the count, size and SHA-256, and the export is recorded (silas.memory.exported). An export not continued for a minute is dropped.",
    args: MemoryExportPageArgs,
    result: MemoryExportPage,
  }),
  'memory.importBegin': defineCall({
    access: 'decide',
    summary: "Starts uploading a memory bundle of `bytes` bytes (at most 5 MB: a larger one goes through `silas memory import` with the control center stopped) into a private file under the home; answers the upload's id and the chunk size.",
    args: MemoryImportBeginArgs,
    result: MemoryImportBegun,
  }),
  'memory.importChunk': defineCall({
    access: 'decide',
    summary: 'Appends the next chunk (base64, starting at `offset`, the bytes sent so far) to an upload. An upload not continued for a minute is dropped and its file removed.',
    args: MemoryImportChunkArgs,
    result: z.strictObject({ received: z.number().int().nonnegative() }),
  }),
  'memory.importCommit': defineCall({
    access: 'decide',
    summary:
      "Imports the uploaded bundle as `silas memory import` does (merge, or replace what it covers): checked whole first, then one transaction, or nothing changes and the error names the line and the rule; recorded (silas.memory.imported or import_refused). The upload's file is removed either way.",
    args: MemoryImportCommitArgs,
    result: MemoryImportResult,
  }),
  'memory.importAbort': defineCall({
    access: 'decide',
    summary: 'Drops an upload and removes its file; nothing is imported.',
    args: MemoryUploadId,
    result: z.strictObject({ aborted: z.literal(true) }),
  }),
  'models.status': defineCall({
    access: 'read',
    summary: 'Which model serves each role (proxy, planner, executor, scorer), whether its keyring secret is present, and what is missing for a first conversation (§1.5). Never a key.',
    args: z.object({}).strict(),
    result: ModelsStatus,
  }),
  'models.configure': defineCall({
    access: 'decide',
    summary: 'First run from the cockpit: one provider and model for the given roles, naming the keyring secret of the API key (stored first through secure input).',
    args: ModelsConfigureArgs,
    result: ModelsStatus,
  }),
  'secrets.store': defineCall({
    access: 'decide',
    summary:
      "Secure input (§8.1) from the desktop window: a secret (an API key) into the OS keyring under its name. Refused over the WebSocket: a browser POSTs it to /secrets/NAME instead, so a secret never travels on the conversation's socket. Never echoed or logged.",
    args: SecretStoreArgs,
    result: z.object({ stored: z.literal(true) }).strict(),
  }),
  'models.test': defineCall({
    access: 'decide',
    summary: "One short call to a role's model, to check the provider, the model name and the key before a conversation (costs a few tokens).",
    args: z.object({ role: ModelRole.default('proxy') }).strict(),
    result: ModelsTestResult,
  }),
} as const;

type Calls = typeof calls;
export type CallName = keyof Calls;
export type CallArgs<N extends CallName> = z.input<Calls[N]['args']>;
export type ParsedCallArgs<N extends CallName> = z.output<Calls[N]['args']>;
export type CallResult<N extends CallName> = z.output<Calls[N]['result']>;

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(calls, name);
}
