import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { signPolicyText } from '../aip/policy/sign.js';
import { anchorPolicyInForce } from '../aip/policy/in-force.js';
import { composeAlignment, type Alignment } from '../app/compose-alignment.js';
import { openHome, type Ledger } from '../app/home.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { AlignmentChainReader } from '../store/repositories/alignment-chain.js';
import { useTempDirs } from '../testing/temp.js';
import { alignmentHarness, FILES_POLICY, type AlignmentHarness } from './testing/alignment.js';
import { sqliteConnection } from '../store/transaction.js';

// Alignment from a database writer (docs/alignment.md "Attacker's side"): a process that can write
// the data home's files and the database but cannot reach the OS keyring plants a trace row, edits
// a card, edits violations out of the page's rows, and edits the policy a card is derived from.
// Each attack is performed as it was reproduced; each is seen through, fails closed and is audited.
const tempDir = useTempDirs('silas-alignment-tampering-');
const open: Array<{ ledger: Ledger }> = [];
afterEach(() => {
  for (const h of open.splice(0)) h.ledger.close();
});
const harness = (...args: Parameters<typeof alignmentHarness> extends [string, ...infer R] ? R : never) => {
  const h = alignmentHarness(tempDir(), ...args);
  open.push(h);
  return h;
};
const lastDecision = (h: AlignmentHarness) => h.ledger.audit.tail(50).filter((e) => e.event === 'aip.decision').at(-1)!;

describe('alignment against a database writer', () => {
  it('records a decision whose trace row was planted in the database: trace, violation and notification, the planted row reported', () => {
    const h = harness();
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    const decision = lastDecision(h);
    // The row the recorder would write, planted first: "already recorded", and verified.
    sqliteConnection(h.ledger.db)
      .prepare(
        `INSERT INTO aap_traces (agent_id, trace_id, card_id, ts, source_index, audit_index, action_name, action_type, escalated, verified, violations_json, similarity, drift_similarity, drift_alert, values_json)
         VALUES ('mcp:files', ?, 'ac-x', ?, ?, ?, 'read_file', 'execute', 0, 1, '[]', 1, NULL, 0, '[]')`,
      )
      .run(`tr-${decision.id}`, decision.ts, decision.index, decision.index);
    h.drain();
    expect(h.events('aap.trace').map((t) => t.trace_id)).toEqual([`tr-${decision.id}`]);
    expect(h.events('aap.violation')).toEqual([expect.objectContaining({ trace_id: `tr-${decision.id}`, source_index: decision.index })]);
    expect(h.notices.map((n) => n.kind)).toEqual(['violation']);
    expect(h.events('state.seal_refused')).toContainEqual(expect.objectContaining({ kind: 'trace-index', id: String(decision.index), authority: 'ledger', reason: 'unsealed' }));
    // The planted row was replaced by the real one.
    expect(h.repo.recordedTrace(`tr-${decision.id}`)).toMatchObject({ verified: false, actionName: 'delete_file' });
    expect(h.service.violations('mcp:files', 10).violations).toEqual([expect.objectContaining({ traceId: `tr-${decision.id}`, actionName: 'delete_file' })]);
    // A recorded row holds its seal: read again, nothing is recorded twice.
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_cursor SET last_index = -1').run();
    const again = h.restart();
    again.drain();
    expect(again.events('aap.trace')).toHaveLength(1);
  });

  it('fails an agent closed when its edited card is tampered with: every action a violation, never the looser derived card', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    // The person's stricter card: read_file forbidden.
    const card = h.service.card('mcp:files').card as Record<string, unknown> & { autonomy_envelope: Record<string, unknown> };
    h.service.saveCard('mcp:files', JSON.stringify({ ...card, card_id: 'ac-files-strict', autonomy_envelope: { ...card.autonomy_envelope, bounded_actions: ['list_directory'], forbidden_actions: ['delete_file', 'read_file'] } }));
    // Edited in the database so that its signature no longer holds.
    const row = h.repo.activeCard('mcp:files')!;
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_cards SET card_json = ? WHERE id = ?').run(row.cardJson.replace('"read_file"]', '"write_file"]'), row.id);
    const again = h.restart();
    again.decide('read_file', 'ALLOW');
    again.drain();
    const trace = again.events('aap.trace').at(-1)!;
    expect(trace).toMatchObject({ verified: false });
    expect(trace.violations).toContain('card_refused');
    expect(again.events('aap.violation').at(-1)).toMatchObject({ violations: expect.arrayContaining([expect.objectContaining({ type: 'card_refused', description: expect.stringMatching(/every action counts as a violation until you save or re-derive a card/) })]) });
    expect(again.notices.map((n) => n.kind)).toEqual(['violation']);
    expect(again.events('aap.card_refused').at(-1)).toMatchObject({ agent_id: 'mcp:files', problems: [expect.stringMatching(/not signed by the owner key/)] });
    expect(again.events('aap.card_failed_closed')).toEqual([expect.objectContaining({ agent_id: 'mcp:files', reason: expect.stringMatching(/ac-files-strict/) })]);
    // Not the derived card: it bounds read_file, and would have let this pass.
    const inForce = again.service.card('mcp:files');
    expect(inForce.refused).toMatch(/ac-files-strict/);
    expect(inForce.card).toMatchObject({ autonomy_envelope: { bounded_actions: [], forbidden_actions: [] } });
    expect(again.service.agents().agents[0]).toMatchObject({ agentId: 'mcp:files', cardRefused: expect.stringMatching(/ac-files-strict/) });
    // A policy reload does not lift it either: only the person does.
    again.ledger.audit.append('aip.policy_reloaded', { server: 'files', session_id: 's', policy_name: 'files', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) });
    again.decide('list_directory', 'ALLOW');
    again.drain();
    expect(again.events('aap.trace').at(-1)).toMatchObject({ verified: false });
    // The person asks for the card derived from the signed policy: decisions are judged by it again.
    expect(again.service.useDerivedCard('mcp:files').cardId).toMatch(/^ac-mcp-files-/);
    expect(again.service.card('mcp:files').refused).toBeNull();
    again.decide('read_file', 'ALLOW');
    again.drain();
    expect(again.events('aap.trace').at(-1)).toMatchObject({ verified: true });
  });

  it('fails an agent closed when an older card, signed in its day, is put back in force in the database', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const loose = h.repo.activeCard('mcp:files')!;
    // The person's stricter card: read_file forbidden.
    const card = h.service.card('mcp:files').card as Record<string, unknown> & { autonomy_envelope: Record<string, unknown> };
    h.service.saveCard('mcp:files', JSON.stringify({ ...card, card_id: 'ac-files-strict', autonomy_envelope: { ...card.autonomy_envelope, bounded_actions: ['list_directory'], forbidden_actions: ['delete_file', 'read_file'] } }));
    // The looser derived card, still validly signed, is made the active one again.
    sqliteConnection(h.ledger.db).prepare("UPDATE aap_cards SET active = 0 WHERE agent_id = 'mcp:files'").run();
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_cards SET active = 1 WHERE id = ?').run(loose.id);
    const again = h.restart();
    again.decide('read_file', 'ALLOW');
    again.drain();
    expect(again.events('aap.trace').at(-1)).toMatchObject({ verified: false });
    expect(again.events('aap.card_failed_closed')).toEqual([expect.objectContaining({ agent_id: 'mcp:files', reason: expect.stringMatching(/not the card last put in force/) })]);
    expect(again.events('state.seal_refused')).toContainEqual(expect.objectContaining({ kind: 'alignment-card', id: 'mcp:files', reason: 'not-anchored' }));
    expect(again.service.card('mcp:files').refused).toMatch(/not the card last put in force/);
  });

  it("a person's edited card whose source is rewritten to 'derived' in the database is not replaced by the looser derived card on a policy change", () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const card = h.service.card('mcp:files').card as Record<string, unknown> & { autonomy_envelope: Record<string, unknown> };
    h.service.saveCard('mcp:files', JSON.stringify({ ...card, card_id: 'ac-files-strict', autonomy_envelope: { ...card.autonomy_envelope, bounded_actions: ['list_directory'], forbidden_actions: ['delete_file', 'read_file'] } }));
    sqliteConnection(h.ledger.db).prepare("UPDATE aap_cards SET source = 'derived' WHERE agent_id = 'mcp:files' AND active = 1").run();
    const again = h.restart();
    again.cards.policyChanged('files', null);
    // Never the derived card, which bounds read_file: the edited card stays, or the agent fails closed.
    const inForce = again.service.card('mcp:files').card as { card_id: string; autonomy_envelope: { bounded_actions: string[] } };
    expect(inForce.autonomy_envelope.bounded_actions).not.toContain('read_file');
    again.decide('read_file', 'ALLOW');
    again.drain();
    expect(again.events('aap.trace').at(-1)).toMatchObject({ verified: false });
  });

  it('keeps showing a violation edited out of the page with two UPDATEs, and audits the tampering', async () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    h.decide('read_file', 'ALLOW');
    h.drain();
    const [hidden] = h.repo.violations('mcp:files', 1);
    // The two UPDATEs of the reproduction: the row marked verified, the count lowered.
    sqliteConnection(h.ledger.db).prepare("UPDATE aap_traces SET verified = 1, violations_json = '[]' WHERE trace_id = ?").run(hidden!.traceId);
    sqliteConnection(h.ledger.db).prepare("UPDATE aap_agent_counts SET violations = 0 WHERE agent_id = 'mcp:files'").run();
    expect(h.service.agents().agents[0]).toMatchObject({ agentId: 'mcp:files', traces: 3, violations: 1, countsTampered: true });
    expect(h.service.violations('mcp:files', 10).violations).toEqual([{ traceId: hidden!.traceId, ts: hidden!.ts, actionName: 'delete_file', violations: ['unbounded_action', 'forbidden_action'], tampered: true }]);
    const series = await h.service.series('mcp:files', 0, 100);
    expect(series.verified).toEqual([1, 0, 1]);
    expect(series.tampered).toEqual([hidden!.traceId]);
    expect((await h.service.series('mcp:files', 0, 100, 2)).verified).toEqual([0, 1]);
    const refusals = h.events('state.seal_refused');
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'trace-index', id: 'counts:mcp:files', reason: 'mismatch' }));
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'trace-index', id: `trace:${hidden!.traceId}`, reason: 'mismatch' }));
    // The row deleted outright: the chain still has the violation.
    sqliteConnection(h.ledger.db).prepare('DELETE FROM aap_traces WHERE trace_id = ?').run(hidden!.traceId);
    expect(h.service.violations('mcp:files', 10).violations).toEqual([expect.objectContaining({ traceId: hidden!.traceId, actionName: 'delete_file', tampered: true })]);
    expect((await h.service.series('mcp:files', 0, 100)).tampered).toEqual([hidden!.traceId]);
    // The recorder's next page counts again from the chain and seals the counts.
    h.decide('read_file', 'ALLOW');
    h.drain();
    expect(h.service.agents().agents[0]).toMatchObject({ violations: 1 });
    expect(h.service.agents().agents[0]!.countsTampered).toBeUndefined();
  });
});

// The policy a card is derived from, edited on disk by a process without the keyring: the runtime's
// own composition (compose-alignment.ts) reads the file a wrapped client entry names.
describe('cards derived only from owner-signed policies', () => {
  function composed() {
    const dir = tempDir();
    const ledger = openHome(join(dir, 'home'), { create: true, keys: 'signer', secretStore: new MemorySecretStore() });
    const policy = join(dir, 'home', 'policies', 'files.yaml');
    mkdirSync(join(dir, 'home', 'policies'), { recursive: true });
    // Saved and put in force as the cockpit does: signed, and its text anchored in the keyring.
    const inForce = signPolicyText(FILES_POLICY, ledger.signer!);
    anchorPolicyInForce(ledger.seals, policy, inForce);
    writeFileSync(policy, inForce);
    const unsigned = join(dir, 'home', 'policies', 'other.yaml');
    writeFileSync(unsigned, FILES_POLICY.replace('name: files', 'name: other'));
    const user = join(dir, 'user');
    mkdirSync(join(user, '.config', 'Claude'), { recursive: true });
    const entry = (name: string, path: string) => ({ command: 'silas', args: ['proxy', '--name', name, '--policy', path, '--client', 'claude-desktop', '--', 'node', 'server.js'] });
    writeFileSync(join(user, '.config', 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { files: entry('files', policy), other: entry('other', unsigned) } }));
    const alignment: Alignment = composeAlignment({ db: ledger.db, audit: ledger.audit, signer: ledger.signer!, trustedKeys: () => ledger.trustedKeys(), seals: ledger.seals, locations: { platform: 'linux', env: {}, home: user }, notifier: { notify: () => undefined } });
    open.push({ ledger });
    const decide = (server: string, tool: string) =>
      ledger.audit.append('aip.decision', { direction: 'upstream', decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool, args: {}, server, client: 'claude-desktop', session_id: 's' } as never);
    const drain = () => {
      while (alignment.recorder.recordPage() > 0);
    };
    const events = (name: string) => ledger.audit.tail(10_000).filter((e) => e.event === name).map((e) => e.data as Record<string, unknown>);
    return { ledger, alignment, policy, decide, drain, events };
  }

  it('does not sign an unsigned policy edit into the card: the newly allowed call is a violation', () => {
    const c = composed();
    c.decide('files', 'read_file');
    c.drain();
    const agent = 'mcp:claude-desktop/files';
    expect(c.alignment.service.card(agent)).toMatchObject({ source: 'derived', card: { autonomy_envelope: { bounded_actions: ['list_directory', 'read_file'] } } });
    // The attack: echo allowed by an edit that carries no owner signature; the proxy reloads it.
    writeFileSync(c.policy, FILES_POLICY.replace('[read_file, list_directory, write_file]', '[read_file, list_directory, write_file, echo]'));
    c.ledger.audit.append('aip.policy_reloaded', { server: 'files', client: 'claude-desktop', session_id: 's', policy_name: 'files', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) } as never);
    c.decide('files', 'echo');
    c.drain();
    const card = c.alignment.service.card(agent).card as { autonomy_envelope: { bounded_actions: string[] } };
    expect(card.autonomy_envelope.bounded_actions).not.toContain('echo');
    const trace = c.events('aap.trace').at(-1)!;
    expect([(trace.trace as ApTrace).action.name, trace.verified, trace.violations]).toEqual(['echo', false, ['unbounded_action']]);
    expect(c.events('aap.violation').at(-1)).toMatchObject({ agent_id: agent });
    expect(c.events('aap.policy_not_signed')).toEqual([expect.objectContaining({ agent_id: agent, path: c.policy, reason: expect.stringMatching(/not signed by the owner key/) })]);
    expect(c.events('aap.card_activated')).toHaveLength(1);
    // "Use the card derived from the signed policy" is refused while the policy is unsigned.
    expect(() => c.alignment.service.useDerivedCard(agent)).toThrow(/not signed by the owner key/);
  });

  it('does not derive a card from an older signed policy put back in place of the one in force', () => {
    const c = composed();
    c.decide('files', 'read_file');
    c.drain();
    const agent = 'mcp:claude-desktop/files';
    // A looser version the owner signed once, written back by a process without the keyring.
    writeFileSync(c.policy, signPolicyText(FILES_POLICY.replace('[read_file, list_directory, write_file]', '[read_file, list_directory, write_file, echo]'), c.ledger.signer!));
    c.ledger.audit.append('aip.policy_reloaded', { server: 'files', client: 'claude-desktop', session_id: 's', policy_name: 'files', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) } as never);
    c.decide('files', 'echo');
    c.drain();
    const card = c.alignment.service.card(agent).card as { autonomy_envelope: { bounded_actions: string[] } };
    expect(card.autonomy_envelope.bounded_actions).not.toContain('echo');
    expect(c.events('aap.trace').at(-1)).toMatchObject({ verified: false });
    expect(c.events('aap.policy_not_signed')).toEqual([expect.objectContaining({ agent_id: agent, reason: expect.stringMatching(/not the policy Silas last put in force/) })]);
  });

  it('does not take a hand-started proxy\'s policy from a start entry edited in the database: the looser policy it names is not the card', () => {
    const c = composed();
    // A looser policy the owner also signed and put in force, for another purpose.
    const wide = join(c.policy, '..', 'wide.yaml');
    const wideText = signPolicyText(FILES_POLICY.replace('name: files', 'name: wide').replace('[read_file, list_directory, write_file]', '[read_file, list_directory, write_file, echo]'), c.ledger.signer!);
    anchorPolicyInForce(c.ledger.seals, wide, wideText);
    writeFileSync(wide, wideText);
    // The proxy a person started by hand records the policy it enforces; a checkpoint covers it.
    const sandbox = { backend: 'none', unsandboxedReason: 'started with --no-sandbox', read: [], write: [], runtime: [], masked: [], env: [], secrets: [], network: { mode: 'none', hosts: [], loopbackPorts: [] }, limits: { mechanism: null, max_processes: null, max_memory_mb: null } };
    const start = c.ledger.audit.append('mcp.proxy_started', { server: 'hand', session_id: 's', command: 'node', args: ['server.js'], pid: 1, policy_name: 'files', policy_hash: 'a'.repeat(64), policy_file: c.policy, sandbox } as never);
    c.ledger.audit.writeCheckpoint();
    // The attack: the start entry rewritten in the database to name the looser policy.
    sqliteConnection(c.ledger.db).prepare("UPDATE audit_entries SET data = json_set(data, '$.policy_file', ?) WHERE id = ?").run(wide, start.id);
    expect(new AlignmentChainReader(c.ledger.db).proxyStartsNamingPolicy('hand', null, 5).map((row) => JSON.parse(row.data).policy_file)).toEqual([wide]);
    c.ledger.audit.append('aip.decision', { direction: 'upstream', decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool: 'echo', args: {}, server: 'hand', session_id: 's' } as never);
    c.drain();
    const card = c.alignment.service.card('mcp:hand').card as { autonomy_envelope: { bounded_actions: string[] } };
    expect(card.autonomy_envelope.bounded_actions).not.toContain('echo');
    expect(c.events('aap.trace').at(-1)).toMatchObject({ agent_id: 'mcp:hand', verified: false, violations: ['unbounded_action'] });
  });

  it('fails an agent closed whose only policy is unsigned', () => {
    const c = composed();
    c.decide('other', 'read_file');
    c.drain();
    const agent = 'mcp:claude-desktop/other';
    expect(c.events('aap.trace').at(-1)).toMatchObject({ agent_id: agent, verified: false, violations: expect.arrayContaining(['card_refused']) });
    expect(c.events('aap.card_failed_closed')).toEqual([expect.objectContaining({ agent_id: agent, reason: expect.stringMatching(/not signed by the owner key/) })]);
    expect(c.alignment.service.card(agent).refused).toMatch(/not signed/);
  });
});
