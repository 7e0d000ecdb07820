import { StringDecoder } from 'node:string_decoder';
import type { CallArgs, CallName, CallResult } from '../../../src-shared/contract/calls.js';
import { ErrorCode, isSilasError } from '../../../src-shared/errors.js';
import { StreamEvent, type DecisionChip, type WorkProgressStatus } from '../../../src-shared/schemas/stream.js';
import type { z } from 'zod';
import { connectToControlCenter } from '../../control/local-socket-client.js';
import { homePaths, resolveHome } from '../../home/paths.js';
import type { CliContext, CliSigners, MessageSigner, OpenForCommand } from '../../app/cli-context.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { TerminalApprovals } from './chat-approval.js';
import { APPROVE_HERE_NEEDS_TERMINAL, controllingTerminal, type ApprovalTerminalSource } from './approval-terminal.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command } from '../io.js';
import { CHAT_HELP, SILAS_PREFIX, dim, formatChips, formatHeader, formatMessage, formatMeter, formatModelProblems, formatOpenWork, formatWork, isFinalWorkStatus, jsonLine } from './chat-format.js';
import { terminalSafe } from './plan.js';
import { isSuggestionChip } from '../../../src-shared/schemas/stream.js';

const DEFAULT_WAIT_WORK_SECONDS = 600;
const MAX_WAIT_WORK_SECONDS = 7 * 24 * 3600;

const usage = `Usage: silas chat [--home DIR] [--approve-here] [--wait-work SECONDS] [--json]

  Talk to Silas from this terminal (spec 002 §8.4), through the running control center (start it
  with \`silas start\` or the desktop app). Each run opens a fresh conversation; nothing of it is
  written to disk by this command. Lines are read from standard input, so input can be piped:
  each line is one message, sent when the previous turn has finished. Messages are signed with
  the home's owner key from the OS keyring (owner taint). Plans Silas proposes wait for your
  approval in the cockpit (Review), or here with --approve-here; after the input ends, chat stays
  until every plan it announced has finished, or until --wait-work runs out.

  In the conversation: /stop stops the running turn (Ctrl-C too; a second Ctrl-C quits),
  /quit leaves, /help lists the commands, and a number answers with that chip.

Options:
  --home DIR            data home of the running control center (default: $SILAS_HOME, else the
                        platform's app-data directory)
  --approve-here        show each plan Silas proposes here in full; typing the first 8 characters
                        of its hash at the prompt signs it with the owner key (anything else
                        leaves the plan to the cockpit). The answer is read from the controlling
                        terminal (/dev/tty), never from standard input: it needs standard input
                        and output to be a terminal, and refuses (exit 2) otherwise
  --wait-work SECONDS   after the input ends, wait at most this long for announced plans to reach
                        a final status (default ${DEFAULT_WAIT_WORK_SECONDS}; 0 leaves at once); they continue
                        in the runtime either way
  --json                print each Stream event as one JSON line instead of the conversation
  -h, --help            show this help

Exit 0 at the end of the conversation; 1 when the control center is not running, no model is
ready, or the connection to it is lost; 2 on bad usage, or --approve-here without a terminal.`;

/** The control connection chat needs: contract calls and the events addressed to it. */
export interface ChatConnection {
  call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>>;
  /** Events addressed to this connection; returns the unsubscribe function. */
  onEvent(listener: (name: string, payload: unknown) => void): () => void;
  /** Why the connection ended, or null while it is open. */
  readonly closed?: string | null;
  close(): void;
}

export interface ChatCommandDeps {
  /** Opens the control connection for a home; tests pass a fake control center. */
  connect?: (home: string) => Promise<ChatConnection>;
  /** How often a dropped connection is looked for while waiting (ms). */
  closedPollMs?: number;
  /** `--approve-here`: signs a plan with the home's owner key; default: the OS keyring's through the ledger. */
  approver?: (home: string, io: CliIo) => (item: WorkItem) => ApprovalToken;
  /** Signs messages with the home's owner key (owner taint, §5.12); default: the OS keyring's. */
  signer?: (home: string, io: CliIo) => ReturnType<CliSigners['chatMessages']>;
  /** `--approve-here`: where confirmations are read; default: the controlling terminal (/dev/tty). */
  terminal?: ApprovalTerminalSource;
}

type Chip = z.infer<typeof DecisionChip>;

/** A line longer than this without a newline is cut, so a runaway pipe cannot fill memory. */
const MAX_LINE_CHARS = 1_000_000;

/** Waking the main loop: anything that changes the state notifies; the loop re-examines it. */
class Wakeup {
  private waiters: (() => void)[] = [];

  notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  wait(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * Standard output, where an answer streams in pieces: partial text goes straight to the stream;
 * without one (a test, an embedder) it is kept until its line is complete. A full line first
 * ends an open partial one.
 */
class Screen {
  private open = false;
  private pending = '';
  private prompted = false;

  constructor(
    private readonly io: CliIo,
    private readonly interactive: boolean,
  ) {}

  partial(text: string): void {
    if (text === '') return;
    this.leavePrompt();
    if (this.io.stdout) {
      this.io.stdout.write(text);
      this.open = !text.endsWith('\n');
      return;
    }
    this.pending += text;
    let newline = this.pending.indexOf('\n');
    while (newline >= 0) {
      this.io.out(this.pending.slice(0, newline));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf('\n');
    }
    this.open = this.pending !== '';
  }

  endLine(): void {
    if (!this.open) return;
    if (this.io.stdout) this.io.stdout.write('\n');
    else this.io.out(this.pending);
    this.pending = '';
    this.open = false;
  }

  line(text: string): void {
    this.leavePrompt();
    this.endLine();
    this.io.out(text);
  }

  /** Leaves the terminal at the start of a fresh line. */
  finish(): void {
    this.leavePrompt();
    this.endLine();
  }

  /** "you> " on an interactive terminal, when chat waits for the person. */
  prompt(): void {
    if (!this.interactive || this.prompted || !this.io.stdout) return;
    this.endLine();
    this.io.stdout.write('you> ');
    this.prompted = true;
  }

  /** The person pressed Enter: the terminal's echo already moved to a new line. */
  lineTyped(): void {
    this.prompted = false;
  }

  private leavePrompt(): void {
    if (!this.prompted) return;
    this.io.stdout?.write('\n');
    this.prompted = false;
  }
}

interface LineReader {
  stop(): void;
  /** While an approval is asked on the terminal, standard input (the same terminal) is not read. */
  pause(): void;
  resume(): void;
}

/** Lines of standard input, pushed as they arrive (no TTY needed), then its end. */
function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, onEnd: () => void): LineReader {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let ended = false;
  const emit = (text: string) => {
    buffer += text;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      onLine(buffer.slice(0, newline).replace(/\r$/, ''));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
    if (buffer.length > MAX_LINE_CHARS) {
      onLine(buffer);
      buffer = '';
    }
  };
  const onData = (chunk: Buffer | string) => emit(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  const finish = () => {
    if (ended) return;
    ended = true;
    emit(decoder.end());
    if (buffer !== '') onLine(buffer.replace(/\r$/, ''));
    buffer = '';
    onEnd();
  };
  stream.on('data', onData);
  stream.once('end', finish);
  stream.once('error', finish);
  stream.resume();
  return {
    stop: () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', finish);
      stream.removeListener('error', finish);
      stream.pause();
    },
    pause: () => void stream.pause(),
    resume: () => void (ended || stream.resume()),
  };
}

function parseWaitWork(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_WORK_SECONDS;
  if (!/^\d+$/.test(value) || Number(value) > MAX_WAIT_WORK_SECONDS) throw new UsageError(`--wait-work: expected a whole number of seconds from 0 to ${MAX_WAIT_WORK_SECONDS}, got "${value}"`, usage);
  return Number(value);
}

/** A queued input: a message for Silas, or /quit (which waits its turn like a message). */
type Input = { kind: 'message'; text: string } | { kind: 'quit' };

interface Options {
  home: string;
  json: boolean;
  waitWorkSeconds: number;
  closedPollMs: number;
  /** Owner-signs each message (§5.12); absent, messages go unsigned. */
  sign?: MessageSigner;
  /** `--approve-here`: plans are shown and signed at the terminal. */
  approvals?: TerminalApprovals;
}

/** One conversation from open to exit; the state the event handler and the main loop share. */
class ChatSession {
  private readonly wake = new Wakeup();
  private readonly screen: Screen;
  private readonly colour: boolean;
  private scope: string | null = null;
  private early: unknown[] = [];
  /** A turn sent and not finished: its id once `stream.send` answered. */
  private turn: { id: string | null; cancelling: boolean } | null = null;
  private readonly finishedTurns = new Set<string>();
  private readonly queue: Input[] = [];
  private inputEnded = false;
  private quit: 'quit' | 'interrupt' | null = null;
  private lost: string | null = null;
  private draft: { turnId: string; text: string; open: boolean } | null = null;
  private chips: Chip[] = [];
  private readonly work = new Map<string, { title: string; status: WorkProgressStatus }>();
  private reader: LineReader | undefined;

  constructor(
    private readonly io: CliIo,
    private readonly conn: ChatConnection,
    private readonly options: Options,
  ) {
    const stdout = io.stdout as (NodeJS.WritableStream & { isTTY?: boolean }) | undefined;
    const stdin = io.stdin as (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
    this.colour = stdout?.isTTY === true && !io.env.NO_COLOR;
    this.screen = new Screen(io, !options.json && stdout?.isTTY === true && stdin?.isTTY === true);
  }

  async run(): Promise<number> {
    const unsubscribe = this.conn.onEvent((name, payload) => this.onEvent(name, payload));
    const poll = this.conn.closed === undefined ? undefined : setInterval(() => this.checkClosed(), this.options.closedPollMs);
    let reader: LineReader | undefined;
    try {
      let opened: CallResult<'stream.open'>;
      try {
        opened = await this.conn.call('stream.open', {});
      } catch (error) {
        return this.failed(error, 'could not open a conversation');
      }
      this.scope = opened.scope;
      if (!this.options.json) for (const line of formatHeader(opened.scope, this.options.home, opened.models)) this.note(line);
      else this.io.err(`silas chat: scope ${opened.scope}`);
      if (!opened.models.ready) {
        for (const line of formatModelProblems(opened.models)) this.io.err(line);
        return 1;
      }
      for (const payload of this.early.splice(0)) this.onEvent('stream.event', payload);

      void this.io.stopSignal?.then((signal) => this.interrupt(signal));
      if (this.io.stdin) {
        reader = readLines(
          this.io.stdin,
          (line) => this.onLine(line),
          () => {
            this.inputEnded = true;
            this.wake.notify();
          },
        );
      } else this.inputEnded = true;

      this.reader = reader;
      return await this.converse();
    } finally {
      if (poll !== undefined) clearInterval(poll);
      reader?.stop();
      unsubscribe();
      this.screen.finish();
      this.conn.close();
    }
  }

  /** Sends the queued inputs one turn at a time, then waits for the announced plans. */
  private async converse(): Promise<number> {
    for (;;) {
      if (this.lost !== null) return this.connectionLost();
      if (this.quit !== null) return this.leave();
      if (this.turn === null) {
        // A plan waits: its confirmation is asked on the controlling terminal, not taken from the input.
        if (this.options.approvals?.waiting) {
          this.screen.finish();
          this.reader?.pause();
          try {
            this.note(await this.options.approvals.confirm());
          } catch (error) {
            if (this.isUnavailable(error)) this.lost = (error as Error).message;
            else this.io.err(`silas chat: the approval failed: ${terminalSafe((error as Error).message)}`);
          } finally {
            this.reader?.resume();
          }
          continue;
        }
        const next = this.queue.shift();
        if (next?.kind === 'quit') return this.leave();
        if (next !== undefined) {
          await this.send(next.text);
          continue;
        }
        if (this.inputEnded) break;
        this.screen.prompt();
      }
      await this.wake.wait();
    }
    return this.waitForWork();
  }

  private async waitForWork(): Promise<number> {
    if (this.openWork().size === 0 || this.options.waitWorkSeconds === 0) return this.leave();
    const deadline = Date.now() + this.options.waitWorkSeconds * 1000;
    this.note(`waiting up to ${this.options.waitWorkSeconds}s for ${this.openWork().size} plan(s) to finish (Ctrl-C leaves them running in the runtime)…`);
    for (;;) {
      if (this.lost !== null) return this.connectionLost();
      if (this.quit !== null || this.openWork().size === 0) return this.leave();
      const left = deadline - Date.now();
      if (left <= 0) return this.leave();
      await this.wake.wait(left);
    }
  }

  private leave(): number {
    const open = this.openWork();
    if (open.size > 0) this.note(`the work continues in the runtime; follow it in the cockpit: ${formatOpenWork(open)}`);
    return 0;
  }

  private openWork(): Map<string, { title: string; status: WorkProgressStatus }> {
    return new Map([...this.work].filter(([, item]) => !isFinalWorkStatus(item.status)));
  }

  private async send(typed: string): Promise<void> {
    const chip = this.chipOf(typed);
    const text = chip?.value ?? typed;
    // A suggestion the executor wrote (from tool output) goes unsigned: the person chose it, but its
    // words are not theirs, so the runtime takes it as external (§5.12), never as owner.
    const suggestion = chip !== undefined && isSuggestionChip(chip);
    if (suggestion) this.note('(sending the executor\'s suggestion unsigned: it counts as external, not as your words)');
    this.chips = [];
    this.turn = { id: null, cancelling: false };
    try {
      const signed = suggestion ? undefined : this.options.sign?.(this.scope!, text);
      const sent = await this.conn.call('stream.send', { scope: this.scope!, text, ...(signed ? { signed } : {}) });
      if (this.turn === null) return;
      if (this.finishedTurns.has(sent.turn_id)) this.turn = null;
      else this.turn.id = sent.turn_id;
    } catch (error) {
      this.turn = null;
      if (this.isUnavailable(error)) this.lost = (error as Error).message;
      else this.io.err(`silas chat: not sent: ${terminalSafe((error as Error).message)}`);
    }
  }

  /** "2" after an answer with chips means the second chip. */
  private chipOf(typed: string): Chip | undefined {
    if (!/^\d{1,2}$/.test(typed)) return undefined;
    return this.chips[Number(typed) - 1];
  }

  private onLine(raw: string): void {
    this.screen.lineTyped();
    const line = raw.trim();
    if (line === '') {
      this.wake.notify();
      return;
    }
    if (line.startsWith('/')) {
      const command = line.toLowerCase();
      if (command === '/stop') this.stop('/stop');
      else if (command === '/help') for (const help of CHAT_HELP) this.note(help);
      else if (command === '/quit' || command === '/exit') this.queue.push({ kind: 'quit' });
      else this.note(`unknown command ${terminalSafe(line.split(/\s/)[0]!)}; /help lists commands`);
    } else this.queue.push({ kind: 'message', text: line });
    this.wake.notify();
  }

  /** Ctrl-C: stop the running turn; with none (or a second time, or SIGTERM) leave. */
  private interrupt(signal: string): void {
    if (this.turn !== null && !this.turn.cancelling && signal === 'SIGINT') {
      this.stop('Ctrl-C');
      this.note('(stopping the turn; Ctrl-C again quits)');
      return;
    }
    this.quit = 'interrupt';
    this.wake.notify();
  }

  /** `stream.cancel`: the running turn ends as cancelled; the lines typed before it are dropped, as the runtime drops its queue. */
  private stop(by: string): void {
    const dropped = this.queue.filter((input) => input.kind === 'message').length;
    this.queue.length = 0;
    if (dropped > 0) this.note(`(${by}: ${dropped} message(s) not sent)`);
    if (this.turn === null) {
      if (dropped === 0) this.note(`(${by}: no turn is running)`);
      return;
    }
    this.turn.cancelling = true;
    this.conn.call('stream.cancel', { scope: this.scope! }).then(
      () => undefined,
      (error: unknown) => {
        if (this.isUnavailable(error)) this.lost = (error as Error).message;
        else this.io.err(`silas chat: could not stop the turn: ${terminalSafe((error as Error).message)}`);
        this.wake.notify();
      },
    );
  }

  private onEvent(name: string, payload: unknown): void {
    if (name === 'runtime.stopping') {
      const reason = (payload as { reason?: unknown } | null)?.reason;
      this.lost = `the runtime is shutting down${typeof reason === 'string' ? ` (${terminalSafe(reason)})` : ''}`;
      this.wake.notify();
      return;
    }
    if (name !== 'stream.event') return;
    if (this.scope === null) {
      this.early.push(payload);
      return;
    }
    const parsed = StreamEvent.safeParse(payload);
    if (!parsed.success || parsed.data.scope !== this.scope) return;
    const event = parsed.data;
    if (this.options.json) this.io.out(jsonLine(event));
    else this.show(event);
    this.track(event);
    this.wake.notify();
  }

  private track(event: StreamEvent): void {
    if (event.type === 'work') this.work.set(event.work_item_id, { title: event.title, status: event.status });
    if (event.type === 'turn_finished') {
      this.finishedTurns.add(event.turn_id);
      if (this.turn?.id === event.turn_id) this.turn = null;
    }
  }

  private show(event: StreamEvent): void {
    switch (event.type) {
      case 'turn_started':
        this.draft = null;
        return;
      case 'draft': {
        if (this.draft?.turnId !== event.turn_id) this.draft = { turnId: event.turn_id, text: '', open: false };
        if (!this.draft.open) this.screen.partial(SILAS_PREFIX);
        this.draft.open = true;
        this.draft.text += event.delta;
        this.screen.partial(terminalSafe(event.delta, true));
        return;
      }
      case 'draft_reset':
        this.draft = null;
        this.line(`(answer withdrawn: ${terminalSafe(event.reason)})`);
        return;
      case 'message': {
        if (event.message.sender === 'person') return;
        const draft = this.draft;
        this.draft = null;
        if (draft !== null && draft.turnId === event.turn_id && draft.text.trim() === event.message.text.trim()) this.screen.endLine();
        else this.line(formatMessage(event.message.sender, event.message.text));
        this.chips = event.chips;
        for (const chip of formatChips(event.chips)) this.line(chip);
        return;
      }
      case 'work':
        for (const line of formatWork(event)) this.line(line);
        if (event.status === 'awaiting_approval' && this.options.approvals) for (const line of this.options.approvals.offer(event.scope, event)) this.note(line);
        return;
      case 'turn_finished':
        this.draft = null;
        if (event.outcome === 'cancelled') this.line('(turn cancelled)');
        this.line(dim(formatMeter(event.usage), this.colour));
        if (event.error !== null) this.io.err(`silas chat: ${event.outcome === 'failed' ? 'the turn failed' : `turn ${event.outcome}`}: ${terminalSafe(event.error, true)}`);
        else if (event.outcome === 'failed') this.io.err('silas chat: the turn failed');
        return;
    }
  }

  /** A full line of output; the draft being streamed, if any, is no longer on the current line. */
  private line(text: string): void {
    if (this.draft) this.draft.open = false;
    this.screen.line(text);
  }

  /** Chat's own remarks: in the conversation, or on stderr when stdout carries JSON. */
  private note(text: string): void {
    if (this.options.json) this.io.err(text);
    else this.line(text);
  }

  private checkClosed(): void {
    const closed = this.conn.closed;
    if (closed === null || closed === undefined || this.lost !== null) return;
    this.lost = closed;
    this.wake.notify();
  }

  private isUnavailable(error: unknown): boolean {
    return isSilasError(error) && error.code === ErrorCode.Unavailable;
  }

  private connectionLost(): number {
    this.screen.finish();
    this.io.err(`silas chat: the connection to the Silas control center was lost (${terminalSafe(this.lost ?? 'closed')}); this conversation has ended here`);
    const open = this.openWork();
    if (open.size > 0) this.io.err(`silas chat: plans it announced may still be running; see the cockpit: ${formatOpenWork(open)}`);
    return 1;
  }

  private failed(error: unknown, what: string): number {
    if (this.isUnavailable(error)) {
      this.lost = (error as Error).message;
      return this.connectionLost();
    }
    this.io.err(`silas chat: ${what}: ${terminalSafe((error as Error).message)}`);
    return 1;
  }
}

/** Signs a plan approved at this terminal; the ledger opens only when a plan is approved. */
async function planApprover(cli: CliContext): Promise<(item: WorkItem) => ApprovalToken> {
  return (await cli.database()).planApprover();
}

export function createChatCommand(deps: ChatCommandDeps = {}): Command {
  const connect = deps.connect ?? ((home: string) => connectToControlCenter(homePaths(home).controlFile));

  async function run(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
    const { values, positionals } = parseFlags(argv, { home: { type: 'string' }, json: { type: 'boolean' }, 'wait-work': { type: 'string' }, 'approve-here': { type: 'boolean' } }, usage, true);
    if (values.help) {
      io.out(usage);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError('chat takes no arguments; type the messages on standard input', usage);
    const waitWorkSeconds = parseWaitWork(values['wait-work']);
    const home = resolveHome(values.home, io.env);
    // Checked before anything is opened: without the person's terminal, nothing is signed here.
    const terminal = values['approve-here'] === true ? (deps.terminal ?? controllingTerminal)(io) : null;
    if (terminal !== null && 'refused' in terminal) {
      io.err(`silas chat: ${APPROVE_HERE_NEEDS_TERMINAL} (${terminal.refused})`);
      return 2;
    }

    let conn: ChatConnection;
    try {
      conn = await connect(home);
    } catch (error) {
      io.err(`silas chat: the Silas control center is not running for ${home}; start it with \`silas start\` (or the desktop app)`);
      io.err(`  (${terminalSafe((error as Error).message)})`);
      return 1;
    }
    const cli = await open(home);
    const signing = deps.signer ? deps.signer(home, io) : (await cli.signers()).chatMessages();
    if (signing.sign === null) io.err(`silas chat: messages go unsigned and are taken as external (${terminalSafe(signing.reason)})`);
    const approvals =
      terminal !== null
        ? new TerminalApprovals({ sign: deps.approver ? deps.approver(home, io) : await planApprover(cli), approve: (args) => conn.call('stream.approve', args), terminal })
        : undefined;
    return new ChatSession(io, conn, { home, json: values.json === true, waitWorkSeconds, closedPollMs: deps.closedPollMs ?? 500, sign: signing.sign ?? undefined, approvals }).run();
  }

  return { name: 'chat', usage, run };
}

export const chatCommand: Command = createChatCommand();
