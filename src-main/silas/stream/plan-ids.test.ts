import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { useTempDirs } from '../../testing/temp.js';
import { executorWritesGreeting, homeIn, planCards, plannerAnswer, plannerRoute, startStreamHarness, streamedJson, until, type StreamHarness } from './testing/stream.js';

// A plan the model proposes with the id of a work item that already ran to done
// (docs/silas/stream.md "Plan ids"): the Stream gives it a fresh id before its hash is computed and
// its card built, says so in the conversation, and the card the person signs can run.
const tempDir = useTempDirs('silas-stream-plan-ids-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((event): event is Extract<StreamEvent, { type: T }> => event.type === type);
const ledger = (h: StreamHarness, event: string) => h.runtime.audit.tail(5000).filter((entry) => entry.event === event).map((entry) => entry.data as Record<string, unknown>);

async function approveNextCard(h: StreamHarness, seen: number): Promise<{ id: string; workItemId: string }> {
  const card = await until(() => planCards(h).find((c) => c.kind === 'plan'), `plan card ${seen + 1}`);
  const decided = await h.runtime.router.dispatch('review.decide', { id: card.id, choice: 'approve' }, { transport: 'ipc' });
  expect(decided.ok).toBe(true);
  return { id: card.id, workItemId: (card.details as { workItemId: string }).workItemId };
}

describe('a Stream plan whose id already ran to done', () => {
  it('is re-identified before its card is built: the person is told, the card carries the new id, and approving it runs', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});

    // First: the greeting plan is proposed, approved and runs to done.
    h.server.http.enqueue(streamedJson(plannerRoute()), streamedJson(plannerAnswer('Approve the plan to start.', true)), ...executorWritesGreeting());
    await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'write hello into hello.txt' })).turn_id);
    const first = await approveNextCard(h, 0);
    expect(first.workItemId).toBe('task-stream-greeting');
    await until(() => ofType(owner.events, 'work').some((w) => w.work_item_id === 'task-stream-greeting' && w.status === 'done'), 'the first run to finish');

    // Again, the same plan with the same id, as a model does when asked twice.
    h.server.http.enqueue(streamedJson(plannerRoute()), streamedJson(plannerAnswer('Approve the plan to start.', true)), ...executorWritesGreeting());
    const again = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'write hello into hello.txt again' })).turn_id);
    expect(ofType(again, 'turn_finished')[0]).toMatchObject({ outcome: 'planned' });
    // The conversation says why the id changed, in the person's words, before anything is signed.
    const notes = ofType(again, 'message').map((m) => m.message.text);
    expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(/renamed this plan's id to task-stream-greeting-2 because task-stream-greeting already ran to done/)]));

    const second = await approveNextCard(h, 1);
    expect(second.workItemId).toBe('task-stream-greeting-2');
    const proposed = ledger(h, 'silas.stream.plan_proposed').at(-1)!;
    expect(proposed).toMatchObject({ work_item_id: 'task-stream-greeting-2' });
    expect(ledger(h, 'silas.stream.plan_reidentified')).toEqual([expect.objectContaining({ scope_id: scope, from: 'task-stream-greeting', to: 'task-stream-greeting-2' })]);

    await until(() => ofType(owner.events, 'work').some((w) => w.work_item_id === 'task-stream-greeting-2' && ['done', 'blocked', 'failed'].includes(w.status)), 'the second run to end');
    const ended = ofType(owner.events, 'work').filter((w) => w.work_item_id === 'task-stream-greeting-2').at(-1)!;
    expect(ended.status).toBe('done');
    // The signature was usable: no storage-layer refusal anywhere the person looks.
    expect(JSON.stringify(owner.events)).not.toContain('E_WORK_ITEM_STORE');
    expect(JSON.stringify(owner.events)).not.toContain('done is final; nothing ran');
  });
});
