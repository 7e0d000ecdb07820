import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamContextView, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { useTempDirs } from '../../testing/temp.js';
import { asDatabaseWriter, directRoute, homeIn, startStreamHarness, streamedJson, type StreamHarness, type TestConnection } from './testing/stream.js';

/*
 * Context subscriptions in a running conversation (spec 002 §3.5, §4.3, §5.1.3 step 4, §5.7
 * render step 1; docs/silas/context.md "Subscriptions"), through the real runtime: the person
 * keeps a file in context from the cockpit, the file changes, and the model's next prompt holds
 * what the file says now, also after a restart. And from a database writer's side: a row planted
 * or retargeted in silas_context_subscriptions is never read.
 */

const tempDir = useTempDirs('silas-stream-subs-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

const ledger = (h: StreamHarness, event: string) => h.runtime.audit.tail(5000).filter((entry) => entry.event === event).map((entry) => entry.data as Record<string, unknown>);

/** The text of the model's last request (every message of it). */
const lastPrompt = (h: StreamHarness) => (h.server.http.requests.at(-1)!.json as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');

async function say(h: StreamHarness, tab: TestConnection, scope: string, text: string, answer = 'Noted.'): Promise<void> {
  h.server.http.enqueue(streamedJson(directRoute(answer)));
  await tab.turn((await tab.ok<{ turn_id: string }>('stream.send', { scope, text })).turn_id);
}


describe('context subscriptions in the Stream', () => {
  it("a file kept in context reaches the next prompt as it is now, as external content, and again after a restart", async () => {
    const dir = realpathSync(tempDir());
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    const file = join(dir, 'todo.md');
    writeFileSync(file, 'TODO: water the tomatoes\n');
    const tab = h.connect('session-tab');
    const opened = await tab.ok<StreamOpenResult>('stream.open', {});
    const { scope } = opened;

    const made = await tab.ok<{ sub_id: string }>('stream.subscribe', { scope, sub_type: 'file', target: file });
    expect(ledger(h, 'silas.stream.subscribed')).toEqual([expect.objectContaining({ scope_id: scope, sub_id: made.sub_id, sub_type: 'file', target: file, reactivated: false })]);

    await say(h, tab, scope, 'what is on my list?');
    expect(lastPrompt(h)).toContain(`--- subscription:file | ${file} | live | last_changed: turn 1 ---`);
    expect(lastPrompt(h)).toContain('TODO: water the tomatoes');

    writeFileSync(file, 'TODO: harvest the beans\n');
    await say(h, tab, scope, 'and now?');
    expect(lastPrompt(h)).toContain('TODO: harvest the beans');
    expect(lastPrompt(h)).not.toContain('water the tomatoes');
    expect(lastPrompt(h)).toContain('last_changed: turn 2 ---');

    const view = await tab.ok<StreamContextView>('stream.context', { scope });
    expect(view.subscriptions).toEqual([expect.objectContaining({ sub_id: made.sub_id, active: true, last_changed: 2, tokens: expect.any(Number) })]);
    expect(view.zones[3]!.items).toEqual([expect.objectContaining({ kind: 'subscription', taint: 'external' })]);

    await h.restart();
    writeFileSync(file, 'TODO: plant garlic\n');
    const again = h.connect('session-tab-2');
    await again.ok<StreamOpenResult>('stream.open', { resume: { scope, key: opened.key } });
    await say(h, again, scope, 'after the restart?');
    expect(lastPrompt(h)).toContain('TODO: plant garlic');

    await again.ok('stream.unsubscribe', { scope, sub_id: made.sub_id });
    await say(h, again, scope, 'without it?');
    expect(lastPrompt(h)).not.toContain('TODO: plant garlic');
    expect((await again.ok<StreamContextView>('stream.context', { scope })).subscriptions).toEqual([expect.objectContaining({ active: false, tokens: 0, note: 'deactivated by you' })]);
    expect(ledger(h, 'silas.stream.unsubscribed')).toEqual([expect.objectContaining({ scope_id: scope, sub_id: made.sub_id, removed: false })]);
  });

  it('refuses a file subscription over the local socket, a relative path, and another session\'s scope', async () => {
    const dir = realpathSync(tempDir());
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    const file = join(dir, 'x.txt');
    writeFileSync(file, 'x');
    const terminal = h.connect('session-terminal', 'local-socket');
    const { scope: termScope } = await terminal.ok<StreamOpenResult>('stream.open', {});
    expect(await terminal.call('stream.subscribe', { scope: termScope, sub_type: 'file', target: file })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED', message: expect.stringContaining('only the cockpit') } });
    expect(await terminal.call('stream.subscribe', { scope: termScope, sub_type: 'memory_query', target: 'garden' })).toMatchObject({ ok: true });

    const tab = h.connect('session-tab');
    const { scope } = await tab.ok<StreamOpenResult>('stream.open', {});
    expect(await tab.call('stream.subscribe', { scope, sub_type: 'file', target: 'x.txt' })).toMatchObject({ ok: false, error: { code: 'E_CONTEXT_INVALID', message: expect.stringContaining('absolute path') } });
    expect(await tab.call('stream.subscribe', { scope, sub_type: 'file', target: `${file} | user` })).toMatchObject({ ok: false, error: { message: expect.stringContaining('target') } });
    expect(await terminal.call('stream.subscribe', { scope, sub_type: 'memory_query', target: 'garden' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect((await tab.ok<StreamContextView>('stream.context', { scope })).subscriptions).toEqual([]);
  });
});

describe('sealed subscriptions (a database writer without the keyring)', () => {
  it('a row planted to read a secret file, and a real row retargeted, are never materialised; both are audited', async () => {
    const dir = realpathSync(tempDir());
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    const secret = join(dir, 'id_rsa');
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY----- secret-material');
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'harmless notes');
    const tab = h.connect('session-tab');
    const opened = await tab.ok<StreamOpenResult>('stream.open', {});
    const { scope } = opened;
    const real = await tab.ok<{ sub_id: string }>('stream.subscribe', { scope, sub_type: 'file', target: notes });
    await say(h, tab, scope, 'read my notes');
    expect(lastPrompt(h)).toContain('harmless notes');

    asDatabaseWriter(h, (db) => {
      db.prepare(
        `INSERT INTO silas_context_subscriptions (sub_id, scope_id, sub_type, target, zone, created_at, turn_created, content_hash, active, token_count, last_changed_turn, last_referenced_turn, stale_since_turn, note, seal, updated_at)
         VALUES ('planted', ?, 'file', ?, 'workspace', '2026-01-01T00:00:00.000Z', 0, '', 1, 0, NULL, 100, NULL, NULL, NULL, '2026-01-01T00:00:00.000Z')`,
      ).run(scope, secret);
      db.prepare('UPDATE silas_context_subscriptions SET target = ? WHERE sub_id = ?').run(secret, real.sub_id);
    });
    await h.restart();
    const again = h.connect('session-tab-2');
    await again.ok<StreamOpenResult>('stream.open', { resume: { scope, key: opened.key } });
    await say(h, again, scope, 'anything new?');
    expect(lastPrompt(h)).not.toContain('secret-material');
    expect((await again.ok<StreamContextView>('stream.context', { scope })).subscriptions).toEqual([]);
    expect(ledger(h, 'silas.stream.subscription_refused')).toEqual(
      expect.arrayContaining([expect.objectContaining({ scope_id: scope, sub_id: 'planted' }), expect.objectContaining({ scope_id: scope, sub_id: real.sub_id })]),
    );
    expect(ledger(h, 'state.seal_refused')).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'context-subscription', id: 'planted', reason: 'unsealed' }), expect.objectContaining({ kind: 'context-subscription', id: real.sub_id, reason: 'mismatch' })]),
    );
  });
});
