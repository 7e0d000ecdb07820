import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../../src-shared/contract/index.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { AlignmentRuntime, CARD, FILES, SILAS, seriesOf, violation } from '../../testing/alignment-fixtures.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { fakeNotifications } from '../../testing/fake-notifications.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { connectCockpit } from './connect.js';
import { ALIGNMENT_REFRESH_DELAY_MS, CARD_VALIDATE_DELAY_MS, SERIES_PAGE } from './alignment.js';

async function drain(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await settle();
}

function connected(runtime = new AlignmentRuntime(), notifications: ReturnType<typeof fakeNotifications> | null = null) {
  const transport = runtime.serve(new FakeTransport());
  const store = createCockpitStore();
  const cockpit = connectCockpit({ transport, store, notifications });
  transport.setState('connected');
  const page = () => store.getState().alignment;
  return { runtime, transport, store, page, actions: cockpit.actions, cockpit };
}

async function showing(agentId = FILES, runtime = new AlignmentRuntime(), notifications: ReturnType<typeof fakeNotifications> | null = null) {
  const harness = connected(runtime, notifications);
  await drain();
  harness.actions.showAgent(agentId);
  await drain();
  return harness;
}

const traceEntry = (index: number, agentId = FILES) =>
  auditEntry(index, { event: 'aap.trace', data: { agent_id: agentId, trace_id: `tr-${index}`, card_id: CARD.card_id, source_index: index - 1, verified: true, violations: [], similarity: 0.5, drift_similarity: 0.9, trace: {}, signature: null } });
const violationEntry = (index: number, agentId = FILES) =>
  auditEntry(index, {
    event: 'aap.violation',
    data: { agent_id: agentId, trace_id: `tr-${index}`, card_id: CARD.card_id, source_index: index - 1, violations: [{ type: 'FORBIDDEN_ACTION', severity: 'critical', description: 'delete_file is forbidden' }] },
  });
const driftEntry = (index: number, agentId = FILES) =>
  auditEntry(index, { event: 'aap.drift_alert', data: { agent_id: agentId, card_id: CARD.card_id, similarity: 0.21, sustained: 3, direction: 'value_drift', trace_ids: ['tr-7', 'tr-8'], alert: {} } });

/** Holds a handler's answers until released, in any order. */
function deferred(transport: FakeTransport, name: 'alignment.series' | 'alignment.validateCard') {
  const waiting: Array<{ args: unknown; answer(value: Envelope<unknown>): void }> = [];
  transport.handle(name, (args) => new Promise((answer) => waiting.push({ args, answer })));
  return waiting;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connectCockpit: alignment', () => {
  it('loads the agents and the fleet on connect and when the Alignment page is opened', async () => {
    const { transport, page, actions } = connected();
    await drain();
    expect(transport.callsTo('alignment.agents')).toEqual([{}]);
    expect(transport.callsTo('alignment.fleet')).toEqual([{}]);
    expect(page().agents.map((a) => a.agentId)).toEqual([FILES, SILAS]);
    expect(page().fleet?.fleetScore).toBe(0.48);
    expect(transport.callsTo('alignment.series')).toEqual([]);
    actions.navigate('alignment');
    await drain();
    expect(transport.callsTo('alignment.agents')).toHaveLength(2);
  });

  it('shows an agent: its traces from the start, its violations and its card', async () => {
    const { transport, page } = await showing();
    expect(transport.callsTo('alignment.series')).toEqual([{ agentId: FILES, afterSeq: 0, limit: SERIES_PAGE, newest: SERIES_PAGE }]);
    expect(transport.callsTo('alignment.violations')).toEqual([{ agentId: FILES, limit: 50 }]);
    expect(transport.callsTo('alignment.card')).toEqual([{ agentId: FILES }]);
    expect(page().series?.seq).toEqual([1, 2, 3]);
    expect(page().violations.map((v) => v.traceId)).toEqual(['tr-3']);
    expect(page().card.inForce?.source).toBe('derived');
  });

  it('shows the newest page of a history longer than a page, without reading the rest', async () => {
    const runtime = new AlignmentRuntime();
    runtime.series.set(FILES, seriesOf({ count: SERIES_PAGE + 2 }));
    const { transport, page } = await showing(FILES, runtime);
    expect(transport.callsTo('alignment.series')).toEqual([{ agentId: FILES, afterSeq: 0, limit: SERIES_PAGE, newest: SERIES_PAGE }]);
    expect(page().series?.seq).toHaveLength(SERIES_PAGE);
    expect(page().series?.seq[0]).toBe(3);
    expect(page().series?.seq.at(-1)).toBe(SERIES_PAGE + 2);
  });

  it('pages through what was recorded after the last trace held when it is more than a page', async () => {
    const runtime = new AlignmentRuntime();
    const { transport, page } = await showing(FILES, runtime);
    runtime.series.set(FILES, seriesOf({ count: SERIES_PAGE + 5 }));
    transport.emit('audit.appended', traceEntry(20));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    await drain();
    expect(transport.callsTo('alignment.series').slice(1)).toEqual([
      { agentId: FILES, afterSeq: 3, limit: SERIES_PAGE },
      { agentId: FILES, afterSeq: SERIES_PAGE + 3, limit: SERIES_PAGE },
    ]);
    expect(page().series?.seq).toHaveLength(SERIES_PAGE + 5);
  });

  it('appends what a burst of traces of the shown agent added, once, after the last seq held', async () => {
    const { runtime, transport, page } = await showing();
    runtime.series.set(FILES, seriesOf({ count: 6 }));
    transport.emit('audit.appended', traceEntry(20));
    transport.emit('audit.appended', traceEntry(21));
    transport.emit('audit.appended', traceEntry(22, SILAS));
    transport.emit('audit.appended', auditEntry(23, { event: 'aip.decision', data: {} }));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    await drain();
    expect(transport.callsTo('alignment.series')).toEqual([
      { agentId: FILES, afterSeq: 0, limit: SERIES_PAGE, newest: SERIES_PAGE },
      { agentId: FILES, afterSeq: 3, limit: SERIES_PAGE },
    ]);
    expect(page().series?.seq).toEqual([1, 2, 3, 4, 5, 6]);
    // The counts on the list follow as well, once per burst.
    expect(transport.callsTo('alignment.agents')).toHaveLength(2);
  });

  it('keeps following an agent that records without pause: a refresh does not wait for quiet', async () => {
    const { transport } = await showing();
    for (let i = 0; i < 10; i += 1) {
      transport.emit('audit.appended', traceEntry(30 + i));
      await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS / 3);
      await drain();
    }
    expect(transport.callsTo('alignment.series').length).toBeGreaterThanOrEqual(3);
  });

  it('sends one series request at a time: entries during a long load add one request after it, not a restart', async () => {
    const runtime = new AlignmentRuntime();
    const { transport, page, actions } = connected(runtime);
    await drain();
    const waiting = deferred(transport, 'alignment.series');
    actions.showAgent(FILES);
    await drain();
    transport.emit('audit.appended', traceEntry(20));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    transport.emit('audit.appended', traceEntry(21));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    expect(waiting).toHaveLength(1);
    waiting[0]!.answer({ ok: true, value: seriesOf({ count: 3 }) });
    await drain();
    expect(page().series?.seq).toEqual([1, 2, 3]);
    expect(waiting.map((w) => w.args)).toEqual([
      { agentId: FILES, afterSeq: 0, limit: SERIES_PAGE, newest: SERIES_PAGE },
      { agentId: FILES, afterSeq: 3, limit: SERIES_PAGE },
    ]);
    waiting[1]!.answer({ ok: true, value: seriesOf({ fromSeq: 4, count: 2 }) });
    await drain();
    expect(page().series?.seq).toEqual([1, 2, 3, 4, 5]);
  });

  it("drops a series answer for an agent no longer shown", async () => {
    const { transport, page, actions } = connected();
    await drain();
    const waiting = deferred(transport, 'alignment.series');
    actions.showAgent(FILES);
    actions.showAgent(SILAS);
    await drain();
    waiting[0]!.answer({ ok: true, value: seriesOf({ count: 3 }) });
    waiting[1]!.answer({ ok: true, value: seriesOf({ agentId: SILAS, count: 1 }) });
    await drain();
    expect(page().series?.agentId).toBe(SILAS);
    expect(page().series?.seq).toEqual([1]);
  });

  it('reloads the violations of the shown agent after violation entries, and its card after a card is put in force', async () => {
    const { runtime, transport, page } = await showing();
    runtime.violations.set(FILES, [violation('tr-9'), violation('tr-3')]);
    transport.emit('audit.appended', violationEntry(9));
    transport.emit('audit.appended', auditEntry(10, { event: 'aap.card_activated', data: { agent_id: FILES, card_id: 'ac-2', source: 'edited', signature: null, previous_card_id: CARD.card_id } }));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    await drain();
    expect(page().violations.map((v) => v.traceId)).toEqual(['tr-9', 'tr-3']);
    expect(transport.callsTo('alignment.card')).toHaveLength(2);
    expect(transport.callsTo('alignment.fleet')).toHaveLength(2);
  });

  it('notifies violations and drift alerts once per agent and burst, only when permission is granted, never for the first load', async () => {
    const notifications = fakeNotifications('granted');
    const { transport, page } = await showing(SILAS, new AlignmentRuntime(), notifications);
    // Loading the agents (one has violations) notified nothing.
    expect(notifications.shown).toEqual([]);
    transport.emit('audit.appended', violationEntry(5));
    transport.emit('audit.appended', violationEntry(6));
    transport.emit('audit.appended', driftEntry(7));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    await drain();
    expect(notifications.shown.map(({ title, body, tag }) => ({ title, body, tag }))).toEqual([
      { title: `${FILES} broke its Alignment Card 2 times`, body: 'delete_file is forbidden', tag: `silas-alignment-violation-${FILES}` },
      { title: `${FILES} is drifting from its baseline`, body: '3 decisions in a row at similarity 0.21 (value drift).', tag: `silas-alignment-drift-${FILES}` },
    ]);

    // Clicking one shows its agent and opens its trace.
    notifications.shown[1]!.onClick?.();
    await drain();
    expect(page().selected).toBe(FILES);
    expect(transport.callsTo('alignment.trace')).toEqual([{ traceId: 'tr-8' }]);
    expect(page().inspector.view?.auditIndex).toBe(42);

    notifications.current = 'denied';
    transport.emit('audit.appended', violationEntry(8));
    await vi.advanceTimersByTimeAsync(ALIGNMENT_REFRESH_DELAY_MS);
    expect(notifications.shown).toHaveLength(2);
  });

  it('checks the card draft once typing pauses, lands only the newest check, and saves a valid draft signed', async () => {
    const { runtime, transport, page, actions } = await showing();
    const waiting = deferred(transport, 'alignment.validateCard');
    const first = JSON.stringify({ ...CARD, card_id: 'ac-2' });
    const second = JSON.stringify({ ...CARD, card_id: 'ac-3' });
    actions.editCard(first);
    await vi.advanceTimersByTimeAsync(CARD_VALIDATE_DELAY_MS);
    actions.editCard(second);
    await vi.advanceTimersByTimeAsync(CARD_VALIDATE_DELAY_MS / 2);
    expect(waiting).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(CARD_VALIDATE_DELAY_MS);
    expect(waiting.map((w) => w.args)).toEqual([
      { agentId: FILES, text: first },
      { agentId: FILES, text: second },
    ]);
    waiting[1]!.answer({ ok: true, value: { ok: true, problems: [] } });
    waiting[0]!.answer({ ok: true, value: { ok: false, problems: [{ path: 'card_id', message: 'taken' }] } });
    await drain();
    expect(page().card.validation).toEqual({ text: second, ok: true, problems: [] });

    actions.saveCard();
    await drain();
    expect(runtime.saved).toEqual([{ agentId: FILES, text: second }]);
    expect(page().card.save.message).toBe('Saved and signed: card ac-3 is now in force.');
    expect(page().card.inForce?.source).toBe('edited');
    expect(page().card.draft).toContain('"card_id": "ac-3"');
  });

  it('does not save while the draft has problems, and shows a refusal', async () => {
    const { transport, page, actions } = await showing();
    actions.editCard(JSON.stringify(CARD).replace('}', ' }'));
    await vi.advanceTimersByTimeAsync(CARD_VALIDATE_DELAY_MS);
    await drain();
    expect(page().card.validation?.problems.map((p) => p.path)).toEqual(['card_id']);
    actions.saveCard();
    await drain();
    expect(transport.callsTo('alignment.saveCard')).toEqual([]);

    transport.handle('alignment.validateCard', () => ({ ok: true, value: { ok: true, problems: [] } }));
    actions.editCard(JSON.stringify(CARD));
    await vi.advanceTimersByTimeAsync(CARD_VALIDATE_DELAY_MS);
    await drain();
    actions.saveCard();
    await drain();
    expect(page().card.save).toEqual({ phase: 'error', message: `the card was not saved; the card in force stays. card_id: "${CARD.card_id}" is the id of a card already kept; give the new card a new id (E_INVALID_ARGS)` });
  });
});
