import type { z } from 'zod';
import type { DecisionChip as DecisionChipSchema, ModelsStatus, ModelsTestResult, StreamEvent, StreamMessage, StreamOpenResult, TurnOutcome, TurnUsage } from '../../src-shared/schemas/stream.js';

export type DecisionChip = z.infer<typeof DecisionChipSchema>;

/** The latest `work` event of one work item: what its card shows. */
export type StreamWork = Omit<Extract<StreamEvent, { type: 'work' }>, 'type' | 'scope' | 'item'>;

/** The answer being written: provisional until its `message` replaces it. */
interface StreamDraft {
  turnId: string;
  text: string;
}

interface StreamLastTurn {
  turnId: string;
  outcome: TurnOutcome;
  usage: TurnUsage;
  error: string | null;
}

/** The first-run model setup (§1.5); the API key typed there never reaches this state. */
export interface ModelSetupState {
  /** Shown even once the models are ready (after a save, or asked for), until the person closes it. */
  open: boolean;
  busy: 'saving' | 'testing' | 'checking' | null;
  /** A configuration was saved here (the page says which model now answers). */
  saved: boolean;
  test: ModelsTestResult | null;
  /** The runtime's message for the last failed call of the setup. */
  problem: { action: 'save' | 'test' | 'check'; message: string } | null;
}

export interface StreamState {
  status: 'idle' | 'opening' | 'open' | 'error';
  /** Why the conversation could not be opened. */
  openError: string | null;
  scope: string | null;
  resumed: boolean;
  messages: readonly StreamMessage[];
  draft: StreamDraft | null;
  /** A turn of this scope is running. */
  busy: boolean;
  turnId: string | null;
  lastTurn: StreamLastTurn | null;
  /** In order of first appearance. */
  work: readonly StreamWork[];
  /** The chips of the last Silas message, until the person answers. */
  chips: { messageId: string; chips: readonly DecisionChip[] } | null;
  models: ModelsStatus | null;
  /** A `stream.send` is on its way. */
  sending: boolean;
  /** The last failed send or stop, with the runtime's message. */
  composerError: { action: 'send' | 'cancel'; message: string } | null;
  setup: ModelSetupState;
}

/** A long conversation keeps its newest messages; older ones stay in the runtime's chronicle. */
export const MAX_KEPT_MESSAGES = 500;

const initialModelSetup: ModelSetupState = { open: false, busy: null, saved: false, test: null, problem: null };

export const initialStream: StreamState = {
  status: 'idle',
  openError: null,
  scope: null,
  resumed: false,
  messages: [],
  draft: null,
  busy: false,
  turnId: null,
  lastTurn: null,
  work: [],
  chips: null,
  models: null,
  sending: false,
  composerError: null,
  setup: initialModelSetup,
};

/** Adds a message, or replaces the one with its id (an event may repeat what history already held). */
export function withMessage(messages: readonly StreamMessage[], message: StreamMessage): readonly StreamMessage[] {
  const at = messages.findIndex((m) => m.id === message.id);
  if (at >= 0) return messages.map((m, i) => (i === at ? message : m));
  const next = [...messages, message];
  return next.length > MAX_KEPT_MESSAGES ? next.slice(next.length - MAX_KEPT_MESSAGES) : next;
}

function withWork(work: readonly StreamWork[], item: StreamWork): readonly StreamWork[] {
  return work.some((w) => w.work_item_id === item.work_item_id) ? work.map((w) => (w.work_item_id === item.work_item_id ? item : w)) : [...work, item];
}

/**
 * What `stream.open` returned. Reopening the scope already shown (a reconnect) keeps its work
 * cards, chips and meter, which history does not carry; a streamed draft is dropped because
 * tokens sent while disconnected are lost; the final message brings the whole answer.
 */
export function streamOpened(state: StreamState, result: StreamOpenResult): StreamState {
  const same = state.scope === result.scope;
  return {
    ...state,
    status: 'open',
    openError: null,
    scope: result.scope,
    resumed: result.resumed,
    messages: result.history.slice(-MAX_KEPT_MESSAGES),
    draft: null,
    busy: result.busy,
    turnId: same && result.busy ? state.turnId : null,
    lastTurn: same ? state.lastTurn : null,
    work: same ? state.work : [],
    chips: same ? state.chips : null,
    models: result.models,
  };
}

/** Applies one `stream.event`; events of a scope other than the one shown are ignored. */
export function applyStreamEvent(state: StreamState, event: StreamEvent): StreamState {
  if (state.scope === null || event.scope !== state.scope) return state;
  switch (event.type) {
    case 'turn_started':
      return { ...state, busy: true, turnId: event.turn_id, messages: withMessage(state.messages, event.message), draft: null, chips: null };
    case 'draft': {
      const text = state.draft?.turnId === event.turn_id ? state.draft.text + event.delta : event.delta;
      return { ...state, busy: true, draft: { turnId: event.turn_id, text } };
    }
    case 'draft_reset':
      return state.draft?.turnId === event.turn_id ? { ...state, draft: null } : state;
    case 'message': {
      const { message, chips } = event;
      const answersDraft = message.sender === 'silas' && event.turn_id !== null && state.draft?.turnId === event.turn_id;
      // Chips come with Silas's answers and with the runtime's reports (a finished plan's next steps);
      // a system line without chips leaves the offered ones in place.
      const nextChips = chips.length > 0 && message.sender !== 'person' ? { messageId: message.id, chips } : message.sender === 'system' ? state.chips : null;
      return { ...state, messages: withMessage(state.messages, message), draft: answersDraft ? null : state.draft, chips: nextChips };
    }
    case 'work': {
      // The plan itself is not kept: the cockpit shows and signs it in Review, from the runtime's card.
      const { type: _type, scope: _scope, item: _plan, ...item } = event;
      return { ...state, work: withWork(state.work, item) };
    }
    case 'turn_finished':
      return {
        ...state,
        busy: false,
        turnId: null,
        draft: state.draft?.turnId === event.turn_id ? null : state.draft,
        lastTurn: { turnId: event.turn_id, outcome: event.outcome, usage: event.usage, error: event.error },
      };
  }
}

/** The chips to offer: those of the last Silas message, when that message has any. */
export function offeredChips(state: Pick<StreamState, 'messages' | 'chips'>): readonly DecisionChip[] {
  if (!state.chips) return [];
  const { messageId } = state.chips;
  // Offered while no newer answer or message of the person came after the message that carried them.
  const at = state.messages.findIndex((m) => m.id === messageId);
  if (at < 0) return [];
  return state.messages.slice(at + 1).some((m) => m.sender !== 'system') ? [] : state.chips.chips;
}
