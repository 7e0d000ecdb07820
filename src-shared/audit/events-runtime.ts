import { z } from 'zod';
import { SandboxDenial, ServerSandboxSummary } from '../schemas/server-sandbox.js';
import { AskWithdrawReason } from '../schemas/approval.js';
import { AIP_APPROVALS } from './aip-decision.js';
import { bool, defineAuditEvent as ev, int, json, nstr, num, requestId, str, strs } from './define.js';

// Fields every proxy event carries (ProxyAudit adds them): which server and which proxy session,
// and the agent client whose configuration started it (`--client`, written by `silas clients wrap`).
const proxy = { server: str, session_id: str, client: str.optional() };
const toolApproval = { approval_id: str, server: str, tool: str, args_hash: str };
const clientFile = { client: str, file: str, servers: strs, backup: str };
const peerRefusal = { peer: str, reason: str };
const callRefusal = { call: str, needs: str, transport: str, peer: str };
/** What the tool-definition detectors found (aip/detect/finding.ts), as a Review card shows it. */
const definitionFindings = z.array(z.strictObject({ rule: str, description: str, path: str, excerpt: str }));

/** Policy decisions, approvals of tool calls, proxies, agent clients, the control plane, the runtime and the ledger. */
export const runtimeEvents = {
  'aip.decision': ev({
    summary: 'A policy decision on one MCP message, in the AIP §8 shape (arguments DLP-redacted).',
    category: 'policy_decision',
    // Every field a writer adds is declared here and read through src-shared/audit/aip-decision.ts.
    // Loose, and all but the §8 core optional: entries of older proxies carry fewer fields.
    data: z.looseObject({
      direction: z.enum(['upstream', 'downstream']),
      decision: str,
      policy_mode: str,
      violation: bool,
      method: str.optional(),
      tool: str.optional(),
      args: json.optional(),
      reason: str.optional(),
      error_code: int.optional(),
      failed_arg: str.optional(),
      failed_rule: str.optional(),
      policy_name: str.optional(),
      policy_hash: str.optional(),
      request_id: requestId.optional(),
      // What a proxy adds (ProxyAudit): its server, proxy session and agent client…
      session_id: str.optional(),
      server: str.optional(),
      client: str.optional(),
      // …and how an ASK ended: the answer, what allowed the call, or why it did not run.
      approval: z.enum(AIP_APPROVALS).optional(),
      approval_nonce: str.optional(),
      approval_key: str.optional(),
      approval_rejected: str.optional(),
      standing_id: str.optional(),
      withdrawn: AskWithdrawReason.optional(),
      /** The arguments forwarded were DLP-redacted. */
      dlp: z.literal('redacted').optional(),
    }),
  }),
  'aip.dlp': ev({
    summary: 'DLP findings in one message: rule names and counts, never the matched text.',
    category: 'dlp',
    data: z.looseObject({ ...proxy, direction: z.enum(['upstream', 'downstream']), source: str, rules: z.array(z.strictObject({ rule: str, count: int })) }),
  }),
  'aip.threat': ev({
    summary: 'A threat detector found something in one message: injected instructions, a disguised command or a dangerous chain of calls (docs/threat-detection.md).',
    category: 'dlp',
    data: z.strictObject({
      ...proxy,
      direction: z.enum(['upstream', 'downstream']),
      /** What was scanned: `arguments`, `result`, `error`, `server_request`, `server_notification`. */
      source: str,
      /** What the proxy did: block, ask, redact, annotate, or monitored (mode: monitor, forwarded). */
      action: str,
      method: str.optional(),
      tool: str.optional(),
      request_id: requestId.optional(),
      // The offending span: where, and the text as found (DLP-redacted, at most 200 characters).
      findings: z.array(z.strictObject({ detector: str, rule: str, path: str, start: int, end: int, excerpt: str })),
    }),
  }),
  'aip.policy_reloaded': ev({
    summary: 'A proxy loaded a changed policy file.',
    category: 'policy',
    data: z.strictObject({ ...proxy, policy_name: str, policy_hash: str, previous_hash: str }),
  }),
  'aip.policy_reload_failed': ev({
    summary: 'A changed policy file was refused; the proxy keeps the policy it had.',
    category: 'policy',
    data: z.strictObject({ ...proxy, errors: strs }),
  }),
  'aip.policy_refused': ev({
    summary:
      'A proxy refused its policy file because the owner did not put it in force (unsigned, a signature that does not verify, or not the version Silas last saved); the last policy in force stays, or the proxy does not start (docs/mcp-proxy.md "Signed policies"). Once per distinct file content.',
    category: 'security',
    data: z.strictObject({
      ...proxy,
      policy_file: str,
      reason: z.enum(['unsigned', 'signature_invalid', 'not_in_force']),
      text_sha256: str,
      /** The policy still enforced, or null when there is none (the proxy does not start). */
      in_force_hash: str.nullable(),
      detail: str,
    }),
  }),

  'approvals.requested': ev({
    summary: 'A proxy asked the person about one tool call.',
    category: 'tool_approval',
    data: z.strictObject({ ...toolApproval, request_id: requestId, session_id: str, rule: str }),
  }),
  'approvals.approved': ev({
    summary: 'The person approved a tool call; the approval engine issued a single-use token bound to it (its `silas.approval.issued` entry precedes this one).',
    category: 'tool_approval',
    // token_id is absent from entries written before tool calls took their tokens from the approval engine.
    data: z.strictObject({ ...toolApproval, token_id: str.optional(), nonce: str, key_fingerprint: str, expires_at: str }),
  }),
  'approvals.denied': ev({
    summary: 'The person denied a tool call, or the runtime shut down with it pending.',
    category: 'tool_approval',
    data: z.strictObject({ ...toolApproval, shutdown: bool.optional() }),
  }),
  'approvals.timed_out': ev({
    summary: 'Nobody answered a tool-call question in time; the call was refused.',
    category: 'tool_approval',
    data: z.strictObject(toolApproval),
  }),
  'approvals.withdrawn': ev({
    summary:
      'A tool-call question left Review before anyone answered because nobody waits for it any more: the agent cancelled the call or its connection closed, the proxy gave up or stopped, or the proxy\'s connection to the runtime closed (`reason`). A decision sent afterwards is refused; nothing runs.',
    category: 'tool_approval',
    data: z.strictObject({ ...toolApproval, reason: str }),
  }),
  'approvals.paused': ev({ summary: 'The person paused approvals: every question is refused until resumed.', category: 'tool_approval', data: z.strictObject({}) }),
  'approvals.resumed': ev({ summary: 'The person resumed approvals.', category: 'tool_approval', data: z.strictObject({}) }),
  'review.ask_refused': ev({
    summary: 'A question was refused without waiting: its requester session, or the whole Review queue, already had as many decisions waiting as the cap allows; or, with the queue full, the newest question of the session holding the most was withdrawn to make room for a session holding fewer (`evicted`, docs/review.md "Caps"). Recorded once per source and minute, with the count since.',
    category: 'security',
    data: z.strictObject({ source: str, channel: str, requester: str, kind: str, cap: z.enum(['per_source', 'total', 'evicted']), limit: int, waiting: int, refused_since_last: int }),
  }),
  'approvals.refused_display_mismatch': ev({
    summary: 'A question was refused: its redacted display did not match its arguments.',
    category: 'tool_approval',
    data: z.strictObject({ server: str, tool: str, args_hash: str, request_id: requestId, session_id: str, field: str }),
  }),
  'approvals.refused_paused': ev({
    summary: 'A question was refused because approvals are paused.',
    category: 'tool_approval',
    data: z.strictObject({ server: str, tool: str, session_id: str }),
  }),
  'approvals.standing_created': ev({
    summary: 'The person granted a standing approval ("always allow").',
    category: 'standing_approval',
    data: z.strictObject({ standing_id: str, server: str, tool: str, args_hash: str, key_fingerprint: str }),
  }),
  'approvals.standing_revoked': ev({
    summary: 'A standing approval was revoked.',
    category: 'standing_approval',
    data: z.strictObject({ standing_id: str, server: str.optional(), tool: str.optional(), args_hash: str.optional(), reason: str.optional() }),
  }),
  'approvals.standing_refused': ev({
    summary: 'A proxy found a standing approval that is not in force and did not honour it.',
    category: 'standing_approval',
    data: z.strictObject({ ...proxy, standing_id: str, tool: str, reason: str }),
  }),

  'mcp.proxy_started': ev({
    summary: 'A proxy started its MCP server.',
    category: 'mcp_proxy',
    // sandbox: what the server could reach (docs/mcp-sandbox.md); absent in entries of older versions.
    // allow_unsigned: started with `--allow-unsigned` (docs/mcp-proxy.md "Signed policies"); absent otherwise.
    // policy_file: the absolute `--policy` path, so alignment derives the card of a proxy started by
    // hand from the policy it enforces (docs/alignment.md); absent in entries of older versions.
    data: z.strictObject({ ...proxy, command: str, args: strs, pid: int.optional(), policy_name: str, policy_hash: str, policy_file: str.optional(), sandbox: ServerSandboxSummary.optional(), allow_unsigned: z.literal(true).optional() }),
  }),
  'mcp.sandbox_denied': ev({
    summary: "A sandboxed MCP server was refused something at its sandbox's boundary (a connection its policy does not list).",
    category: 'mcp_proxy',
    data: z.strictObject({ ...proxy, ...SandboxDenial.shape }),
  }),
  'mcp.sandbox_allowed': ev({
    summary: 'A sandboxed MCP server opened a connection its policy lists, through the egress proxy.',
    category: 'mcp_proxy',
    data: z.strictObject({ ...proxy, host: str, port: int }),
  }),
  'mcp.proxy_start_failed': ev({ summary: 'A proxy could not start its MCP server.', category: 'mcp_proxy', data: z.strictObject({ ...proxy, command: str, reason: str }) }),
  'mcp.proxy_start_reported': ev({
    summary:
      'A proxy that could not open the ledger (no OS keyring) reported over the control socket why it could not start; appended by the runtime. The reason is the proxy\'s claim, not checked (docs/mcp-proxy.md "Starting under any client").',
    category: 'mcp_proxy',
    data: z.strictObject({ server: str, client: str.nullable(), reason: str, fix: str, transport: str, peer: str }),
  }),
  'mcp.proxy_stopped': ev({
    summary: 'A proxy stopped; requests still pending were failed.',
    category: 'mcp_proxy',
    // limits: what the sandbox's cgroup counted (process or memory limit reached, peak memory).
    data: z.strictObject({ ...proxy, reason: str, exit_code: int.optional(), signal: str.optional(), failed_pending: int, limits: json.optional() }),
  }),
  'mcp.message_refused': ev({
    summary: 'A proxy refused a malformed or duplicate message from its client.',
    category: 'mcp_proxy',
    data: z.strictObject({ ...proxy, reason: str, code: int, request_id: requestId.optional(), notification: bool.optional() }),
  }),
  'mcp.notification_dropped': ev({
    summary: 'A proxy dropped a notification its client may not send.',
    category: 'mcp_proxy',
    data: z.strictObject({ ...proxy, method: str, tool: str.optional(), reason: str }),
  }),
  'mcp.tools_list_refused': ev({
    summary: 'A proxy refused a tools list whose names normalise alike.',
    category: 'mcp_proxy',
    data: z.strictObject({ ...proxy, reason: str, normalized: json, names: json, request_id: requestId }),
  }),
  'mcp.tool_pinned': ev({ summary: 'A tool definition was seen for the first time and pinned.', category: 'mcp_tool', data: z.strictObject({ ...proxy, tool: str, announced_name: str, hash: str }) }),
  'mcp.tool_changed': ev({
    summary: 'A pinned tool definition changed; the change waits for the person.',
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, tool: str, announced_name: str, expected_hash: str, actual_hash: str }),
  }),
  'mcp.tool_hidden': ev({
    summary: 'A tool was hidden from the client: its schema does not match the policy.',
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, tool: str, announced_name: str, reason: str, expected_hash: str, actual_hash: str }),
  }),
  'mcp.tool_change_approved': ev({
    summary: 'The person approved a changed tool definition.',
    category: 'mcp_tool',
    data: z.strictObject({ server: str, tool: str, previous_hash: nstr, hash: str }),
  }),
  'mcp.tool_change_declined': ev({
    summary: 'The person kept a changed tool definition blocked; the tool stays hidden and refused.',
    category: 'mcp_tool',
    data: z.strictObject({ server: str, tool: str, approved_hash: str, declined_hash: str }),
  }),
  'mcp.tool_held': ev({
    summary: 'A tool definition the detectors flagged was withheld from the client; it waits for the person.',
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, tool: str, announced_name: str, hash: str, first_sight: bool, findings: definitionFindings }),
  }),
  'mcp.instructions_withheld': ev({
    summary: "A server's instructions carried what the tool-definition detectors flag; the client got the initialize result without them.",
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, request_id: requestId, findings: definitionFindings }),
  }),
  'mcp.tool_flagged': ev({
    summary: 'A tool definition the detectors flagged was offered anyway: the policy allows flagged definitions.',
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, tool: str, announced_name: str, hash: str, findings: definitionFindings }),
  }),
  'mcp.tool_dropped': ev({
    summary: 'A tool without a string name was left out of a tools list.',
    category: 'mcp_tool',
    data: z.strictObject({ ...proxy, index: int, reason: str, name: json.optional(), request_id: requestId }),
  }),
  'mcp.tool_held_approved': ev({
    summary: 'The person approved a tool definition held at first sight; the tool is pinned and offered.',
    category: 'mcp_tool',
    data: z.strictObject({ server: str, tool: str, hash: str, rules: strs }),
  }),
  'mcp.tool_held_declined': ev({
    summary: 'The person kept a tool definition held at first sight blocked; the tool stays hidden and refused.',
    category: 'mcp_tool',
    data: z.strictObject({ server: str, tool: str, declined_hash: str, rules: strs }),
  }),
  'mcp.client_wrapped': ev({
    summary: 'An agent client configuration was rewritten to run its servers through Silas.',
    category: 'mcp_client',
    data: z.strictObject({ ...clientFile, policies: strs }),
  }),
  'mcp.client_wrap_failed': ev({ summary: 'Wrapping an agent client configuration failed after it was recorded.', category: 'mcp_client', data: z.strictObject({ ...clientFile, rewritten: bool, error: str }) }),
  'mcp.client_unwrapped': ev({ summary: 'An agent client configuration was restored from its backup.', category: 'mcp_client', data: z.strictObject(clientFile) }),
  'mcp.client_unwrap_failed': ev({ summary: 'Restoring an agent client configuration failed.', category: 'mcp_client', data: z.strictObject({ ...clientFile, restored: bool, error: str }) }),

  'control.auth_failed': ev({ summary: 'A control-plane connection failed to authenticate.', category: 'security', data: z.strictObject(peerRefusal) }),
  'control.rate_limited': ev({ summary: 'A control-plane session sent too many messages.', category: 'security', data: z.strictObject({ peer: str, limit_per_minute: num }) }),
  'control.upgrade_refused': ev({
    summary: 'A WebSocket upgrade was refused (foreign Host or Origin, wrong path).',
    category: 'security',
    data: z.strictObject({ ...peerRefusal, host: str, origin: str }),
  }),
  'control.connection_refused': ev({
    summary: 'A local-socket connection was refused or closed by a limit (connections, unfinished-frame bytes, frame size or deadline).',
    category: 'security',
    data: z.strictObject({ ...peerRefusal, limit: num }),
  }),
  'control.decision_refused': ev({ summary: 'A decision was attempted over a credential that may only ask.', category: 'security', data: z.strictObject(callRefusal) }),
  'control.call_refused': ev({ summary: 'A call was refused: the credential lacks its capability.', category: 'security', data: z.strictObject(callRefusal) }),
  'control.cockpit_link_issued': ev({
    summary: 'A fresh cockpit link was handed to a process that signed a one-time challenge with the keyring\'s owner key (`silas open`); the fingerprint of that key, never the credential.',
    category: 'security',
    data: z.strictObject({ owner_fingerprint: str, delivered: z.enum(['link', 'window']), transport: str, peer: str }),
  }),
  'control.cockpit_sessions_revoked': ev({
    summary: 'The person revoked cockpit sessions: every cockpit credential but their own no longer authenticates, and the sessions that used one were signed out; counts only, never a credential.',
    category: 'security',
    data: z.strictObject({ credentials: int, sessions: int, transport: str, peer: str }),
  }),
  'control.cockpit_link_refused': ev({
    summary: 'A request for a cockpit link was refused (unknown, expired or reused challenge, another home, a signature not by the owner key); no link was given.',
    category: 'security',
    data: z.strictObject({ ...peerRefusal, transport: str }),
  }),

  'runtime.initialised': ev({ summary: 'A data home was initialised with its owner key.', category: 'runtime', data: z.strictObject({ owner_fingerprint: str, key_created: bool }) }),
  'runtime.started': ev({ summary: 'The runtime started.', category: 'runtime', data: z.strictObject({ mode: str, pid: int, version: str }) }),
  'runtime.stopped': ev({ summary: 'The runtime stopped.', category: 'runtime', data: z.strictObject({ reason: str }) }),
  'operator.models_configured': ev({
    summary: 'The person chose the model of one or more agent roles in the cockpit (naming the keyring secret of its API key, never the key).',
    category: 'operator',
    data: z.strictObject({ roles: strs, provider: str, model: str, key_secret: nstr }),
  }),
  'operator.secret_stored': ev({
    summary: 'A secret (an API key) was stored in the OS keyring through the cockpit\'s secure input; its name only.',
    category: 'operator',
    data: z.strictObject({ name: str, channel: str }),
  }),
  'policies.saved': ev({
    summary: 'A policy was signed with the owner key and written from the cockpit (a save, a restore of an earlier version, or an outside edit adopted).',
    category: 'policy',
    data: z.strictObject({ path: str, seq: int, policy_hash: str, signer: str, action: str }),
  }),
  'policies.created': ev({
    summary: 'A new policy was made from a template in the gallery (signed as its first version), with the template\'s test suite beside it.',
    category: 'policy',
    data: z.strictObject({ path: str, template: str, suite: str }),
  }),
  'policies.restore_refused': ev({ summary: 'A saved policy version was not restored: its stored text no longer matches its hash, or its row fails the owner\'s seal (changed outside Silas).', category: 'policy', data: z.strictObject({ path: str, seq: int, reason: str }) }),
  'policies.write_refused': ev({ summary: 'The cockpit was refused a write to a file that is not a policy of this installation.', category: 'security', data: z.strictObject({ path: str, reason: str }) }),
  'aap.trace': ev({
    summary: "An AP-Trace (AAP §5) made from one agent decision of this ledger, verified against the agent's Alignment Card; signed with the owner key when the card asks for it.",
    category: 'alignment',
    data: z.strictObject({
      agent_id: str,
      trace_id: str,
      card_id: str,
      source_index: int,
      verified: bool,
      violations: strs,
      similarity: num,
      drift_similarity: num.nullable(),
      trace: json,
      signature: nstr,
    }),
  }),
  'aap.violation': ev({
    summary: "An agent decision broke its Alignment Card (AAP §7.5): what was broken, on which trace.",
    category: 'alignment',
    data: z.strictObject({ agent_id: str, trace_id: str, card_id: str, source_index: int, violations: z.array(z.strictObject({ type: str, severity: str, description: str })) }),
  }),
  'aap.drift_alert': ev({
    summary: "An agent's recent decisions stayed far from its baseline for several traces in a row (AAP §8.4).",
    category: 'alignment',
    data: z.strictObject({ agent_id: str, card_id: str, similarity: num, sustained: int, direction: str, trace_ids: strs, alert: json }),
  }),
  'aap.card_activated': ev({
    summary: "An agent's Alignment Card was put in force: derived from its policy, or edited and signed in the cockpit.",
    category: 'alignment',
    data: z.strictObject({ agent_id: str, card_id: str, source: str, signature: nstr, previous_card_id: nstr }),
  }),
  'aap.state_refused': ev({
    summary: "The alignment recorder's saved state (its place in the chain, or an agent's drift baseline) was not signed by the owner key; it is not used: the chain is read again, or the baseline starts anew.",
    category: 'security',
    data: z.strictObject({ state: str, reason: str }),
  }),
  'aap.card_refused': ev({
    summary: 'An edited Alignment Card was refused (it did not validate); the card in force stays.',
    category: 'alignment',
    data: z.strictObject({ agent_id: str, problems: strs }),
  }),
  'aap.card_failed_closed': ev({
    summary: "An agent's Alignment Card was refused (its owner signature does not hold, it no longer compiles, or its policy is not signed): the agent is on a card under which every action is a violation until the person saves or re-derives one.",
    category: 'security',
    data: z.strictObject({ agent_id: str, card_id: str, reason: str }),
  }),
  'aap.policy_not_signed': ev({
    summary: "No Alignment Card was derived from an agent's policy because it is not signed by the owner key; the card in force (or the refused card) stays.",
    category: 'security',
    data: z.strictObject({ agent_id: str, path: str, reason: str, card_id: nstr }),
  }),
  'state.seal_refused': ev({
    summary: 'State in the data home that decides what happens (models, policies, cards, work, scope keys…) failed its keyring seal; it was not acted on (docs/architecture.md §2 "Sealed state").',
    category: 'security',
    data: z.strictObject({ kind: str, id: str, authority: z.enum(['owner', 'ledger']), reason: z.enum(['unsealed', 'mismatch', 'not-anchored', 'no-key']), detail: str }),
  }),
  'operator.note': ev({ summary: 'A note the operator wrote into the ledger (`silas audit note`).', category: 'operator', data: z.strictObject({ text: str }) }),

  'audit.checkpoint': ev({ summary: 'A signed checkpoint over the chain up to this entry.', category: 'ledger', reserved: true, data: z.looseObject({}) }),
  'audit.chain_keyed': ev({
    summary: 'The first keyed entry of a home with unkeyed entries; it seals their head.',
    category: 'ledger',
    reserved: true,
    data: z.strictObject({ legacy_entries: int, legacy_head_hash: str }),
  }),
  'audit.tamper_detected': ev({
    summary: 'The ledger or a table it vouches for was altered outside Silas.',
    category: 'ledger',
    // Loose: the ledger records a refused checkpoint (index, refused events), the home an edited table.
    data: z.looseObject({ reason: str }),
  }),
} as const;
