import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamEvent, type StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { cliDatabase } from '../../app/cli-database.js';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { useTempDirs } from '../../testing/temp.js';
import { GREETING_PLAN, directRoute, executorWritesGreeting, homeIn, planCards, startStreamHarness, streamedJson, until, type StreamHarness } from '../../silas/stream/testing/stream.js';
import { runCli } from '../main.js';
import type { CliIo } from '../io.js';
import { createChatCommand } from './chat.js';
import type { ApprovalTerminalSource } from './approval-terminal.js';
import { commandOpener } from '../../app/cli-context.js';

// `silas chat` against the real runtime: the local control socket, its ask credential from
// control.json, owner-signed messages (the keyring's owner key) and the scripted model server.
const tempDir = useTempDirs('silas-chat-process-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function chat(h: StreamHarness, stdin: string, extra: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['chat', '--home', h.home, ...extra], { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, secretStore: h.store, stdin: Readable.from([stdin]) });
  return { code, out, err: err.join('\n') };
}

describe('silas chat (terminal channel) with the runtime', () => {
  it('talks to Silas over the local socket; its messages are owner-signed, so their taint is owner', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    h.server.http.enqueue(streamedJson(directRoute('Hello from the runtime.')), streamedJson(directRoute('Second answer.')));
    const result = await chat(h, 'hello\nand again\n', ['--json']);
    expect(result.code).toBe(0);
    const events = result.out.map((line) => StreamEvent.parse(JSON.parse(line)));
    const started = events.filter((e) => e.type === 'turn_started');
    expect(started.map((e) => [e.message.text, e.message.taint])).toEqual([
      ['hello', 'owner'],
      ['and again', 'owner'],
    ]);
    expect(events.filter((e) => e.type === 'message').map((e) => e.message.text)).toEqual(['Hello from the runtime.', 'Second answer.']);
    const received = h.runtime.audit.tail(200).filter((e) => e.event === 'silas.stream.message_received').map((e) => e.data);
    expect(received).toEqual([expect.objectContaining({ taint: 'owner', signed: true }), expect.objectContaining({ taint: 'owner', signed: true })]);
    expect(h.runtime.audit.tail(200).some((e) => e.event === 'silas.stream.signature_refused')).toBe(false);
  });

  it('without the owner key the messages go unsigned and are external, and chat says why', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    h.server.http.enqueue(streamedJson(directRoute('Hi.')));
    const out: string[] = [];
    const err: string[] = [];
    const { MemorySecretStore } = await import('../../keys/secret-store.js');
    const code = await runCli(['chat', '--home', h.home, '--json'], { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, secretStore: new MemorySecretStore(), stdin: Readable.from(['hi\n']) });
    expect(code).toBe(0);
    expect(err.join('\n')).toContain('messages go unsigned and are taken as external');
    const started = out.map((line) => StreamEvent.parse(JSON.parse(line))).find((e) => e.type === 'turn_started');
    expect(started).toMatchObject({ message: { taint: 'external' } });
  });
});

/**
 * The person at a terminal (a pseudo-terminal's side of `--approve-here`, approval-terminal.ts; the
 * real /dev/tty reader is exercised under `script` in approval-terminal.test.ts): reads the plan the
 * way they would, and answers the prompt with `answer(shownHash)`.
 */
function personAtTerminal(lines: string[], answer: (hash: string) => string): { source: ApprovalTerminalSource; prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    source: () => ({
      ask: async (prompt) => {
        prompts.push(prompt);
        const shown = await until(() => lines.join('\n').match(/confirm the first 8 characters of the plan hash: ([0-9a-f]{8})/), 'the plan and its hash');
        return answer(shown[1]!);
      },
    }),
  };
}

function chatWith(source: ApprovalTerminalSource, argv: string[], io: CliIo): Promise<number> {
  return createChatCommand({ terminal: source }).run(argv, io, commandOpener(io));
}

describe('silas chat --approve-here', () => {
  it('a confirmation piped into standard input (no terminal) is refused: exit 2, and nothing is signed', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    h.server.http.enqueue(streamedJson(directRoute('Here is the plan.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })), ...executorWritesGreeting());
    // A process with no terminal drives chat through a pipe and echoes back the hash it printed.
    const stdin = new PassThrough();
    const lines: string[] = [];
    const running = runCli(['chat', '--home', h.home, '--approve-here', '--wait-work', '5'], { out: (t) => lines.push(t), err: (t) => lines.push(t), env: {}, secretStore: h.store, stdin });
    stdin.write('write the greeting\n');
    let ended = false;
    void running.finally(() => (ended = true));
    const shown = await until(() => (ended ? 'ended' : lines.join('\n').match(/confirm the first 8 characters of the plan hash: ([0-9a-f]{8})/)), 'the plan and its hash, or chat to end');
    stdin.end(shown === 'ended' ? '' : `${shown[1]}\n`);
    const code = await running;
    expect(code, lines.join('\n')).toBe(2);
    expect(lines.join('\n')).toContain('--approve-here needs a terminal; approve in the cockpit instead');
    const events = h.runtime.audit.tail(300).map((e) => e.event);
    for (const signed of ['silas.approval.issued', 'silas.run.approval_confirmed', 'silas.stream.terminal_approval', 'silas.approval.consumed']) expect(events).not.toContain(signed);
  });

  it('shows the plan, signs it at the terminal with the first 8 hash characters, and the runtime runs it', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    h.server.http.enqueue(streamedJson(directRoute('Here is the plan.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })), ...executorWritesGreeting());
    // The person reads the hash off the plan shown, then types its first 8 characters at the terminal's prompt.
    const stdin = new PassThrough();
    const lines: string[] = [];
    const person = personAtTerminal(lines, (hash) => {
      expect(planHash(parsePlan(GREETING_PLAN)).startsWith(hash)).toBe(false); // the runtime's plan carries the resolved mode: its own hash
      return hash;
    });
    const running = chatWith(person.source, ['--home', h.home, '--approve-here', '--wait-work', '60'], { out: (t) => lines.push(t), err: (t) => lines.push(t), env: {}, secretStore: h.store, stdin });
    stdin.end('write the greeting\n');
    const code = await running;
    expect(person.prompts).toEqual([expect.stringContaining('first 8 characters of its plan hash')]);
    const out = lines.join('\n');
    expect(code, out).toBe(0);
    expect(out).toContain('Write the greeting file');
    expect(out).toContain('cat hello.txt');
    expect(out).toMatch(/approved and signed here \(token [0-9a-f]{12}…\)/);
    expect(out).toMatch(/done/);
    const events = h.runtime.audit.tail(300).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['silas.run.approval_confirmed', 'silas.stream.terminal_approval', 'silas.plan_approval.withdrawn', 'silas.approval.consumed']));
    expect(events).not.toContain('silas.plan_approval.approved');
    expect(planCards(h)).toEqual([]);
  });

  it('a wrong code approves nothing: the plan still waits in Review', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    h.server.http.enqueue(streamedJson(directRoute('Here is the plan.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })));
    const lines: string[] = [];
    const code = await chatWith(personAtTerminal(lines, () => 'yes please').source, ['--home', h.home, '--approve-here', '--wait-work', '0'], {
      out: (t) => lines.push(t),
      err: (t) => lines.push(t),
      env: {},
      secretStore: h.store,
      stdin: Readable.from(['write the greeting\n']),
    });
    expect(code).toBe(0);
    expect(lines.join('\n')).toContain(`not approved here; "Write the greeting file" still waits in the cockpit's Review`);
    expect(planCards(h).map((c) => c.kind)).toEqual(['plan']);
    expect(h.runtime.audit.tail(300).some((e) => e.event === 'silas.stream.terminal_approval')).toBe(false);
  });

  it('the runtime refuses a token that is not for the waiting plan, and one for another scope', async () => {
    const h = (harness = await startStreamHarness(homeIn(tempDir())));
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(streamedJson(directRoute('Here is the plan.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })));
    await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'write it' })).turn_id);
    const other = parsePlan(GREETING_PLAN.replace('Write hello.txt containing exactly "hello".', 'Delete everything.'));
    const token = cliDatabase(h.home, h.store).planApprover()(other);
    expect(await owner.ok('stream.approve', { scope, work_item_id: 'task-stream-greeting', token })).toEqual({ accepted: false, reason: expect.stringContaining('not for this plan') });
    const intruder = h.connect('session-b');
    const right = cliDatabase(h.home, h.store).planApprover()(parsePlan(GREETING_PLAN));
    expect(await intruder.call('stream.approve', { scope, work_item_id: 'task-stream-greeting', token: right })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(planCards(h).map((c) => c.kind)).toEqual(['plan']);
  });
});
