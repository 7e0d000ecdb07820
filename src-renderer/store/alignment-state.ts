import type { CallResult } from '../../src-shared/contract/index.js';
import { appendSeries, type SeriesColumns } from './alignment-series.js';

/*
 * The Alignment page (docs/alignment.md "The Alignment page"): the governed agents, the selected
 * agent's trace columns, violations and card editor, the trace inspector, and the fleet's value
 * coherence. Pure reducers over one state object; alignment-slice.ts puts them in the store and
 * lib/cockpit/alignment.ts does the I/O.
 */

export type AlignmentAgentView = CallResult<'alignment.agents'>['agents'][number];
export type AlignmentViolation = CallResult<'alignment.violations'>['violations'][number];
export type AlignmentTrace = CallResult<'alignment.trace'>;
export type AlignmentCardInForce = CallResult<'alignment.card'>;
export type AlignmentCardProblem = CallResult<'alignment.validateCard'>['problems'][number];
export type AlignmentFleet = CallResult<'alignment.fleet'>;
export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

/** The newest violations listed (`alignment.violations`' limit). */
export const VIOLATIONS_SHOWN = 50;

/** The runtime's verdict on one text of the card draft. */
export interface CardValidation {
  text: string;
  ok: boolean;
  problems: readonly AlignmentCardProblem[];
}

export interface CardEditorState {
  status: LoadStatus;
  error: string | null;
  /** The card in force, as `alignment.card` returned it. */
  inForce: AlignmentCardInForce | null;
  /** The card in force as editable text: the draft is "unchanged" while equal to it. */
  savedText: string;
  draft: string;
  validation: CardValidation | null;
  validating: boolean;
  validateError: string | null;
  save: { phase: 'idle' | 'saving' | 'saved' | 'error'; message: string | null };
}

export interface AlignmentState {
  agents: readonly AlignmentAgentView[];
  agentsStatus: LoadStatus;
  agentsError: string | null;
  /** The agent whose charts, violations and card are shown. */
  selected: string | null;
  /** Another agent asked for while the card editor holds an unsaved draft: waiting for the person's word. */
  cardDiscard: { agentId: string; next: string } | null;
  series: SeriesColumns | null;
  seriesStatus: LoadStatus;
  seriesError: string | null;
  violations: readonly AlignmentViolation[];
  violationsStatus: LoadStatus;
  violationsError: string | null;
  inspector: { traceId: string | null; status: LoadStatus; view: AlignmentTrace | null; error: string | null };
  card: CardEditorState;
  fleet: AlignmentFleet | null;
  fleetStatus: LoadStatus;
  fleetError: string | null;
}

const idleSave: CardEditorState['save'] = { phase: 'idle', message: null };
const initialCardEditor: CardEditorState = {
  status: 'idle',
  error: null,
  inForce: null,
  savedText: '',
  draft: '',
  validation: null,
  validating: false,
  validateError: null,
  save: idleSave,
};
const initialInspector: AlignmentState['inspector'] = { traceId: null, status: 'idle', view: null, error: null };

/** What belongs to the agent shown, as it is before anything of it is loaded. */
const agentFresh = {
  cardDiscard: null,
  series: null,
  seriesStatus: 'idle',
  seriesError: null,
  violations: [],
  violationsStatus: 'idle',
  violationsError: null,
  inspector: initialInspector,
  card: initialCardEditor,
} as const satisfies Partial<AlignmentState>;

export const initialAlignment: AlignmentState = {
  agents: [],
  agentsStatus: 'idle',
  agentsError: null,
  selected: null,
  ...agentFresh,
  fleet: null,
  fleetStatus: 'idle',
  fleetError: null,
};

type S = AlignmentState;

/** A reload keeps what is shown ('ready') while it runs; the first load shows 'loading'. */
const loading = (status: LoadStatus): LoadStatus => (status === 'ready' ? 'ready' : 'loading');
const failed = (status: LoadStatus): LoadStatus => (status === 'ready' ? 'ready' : 'error');

export const agentsLoading = (s: S): S => ({ ...s, agentsStatus: loading(s.agentsStatus), agentsError: null });
export const agentsLoaded = (s: S, agents: readonly AlignmentAgentView[]): S => ({ ...s, agents, agentsStatus: 'ready', agentsError: null });
export const agentsFailed = (s: S, message: string): S => ({ ...s, agentsStatus: failed(s.agentsStatus), agentsError: message });

/** True while the card editor holds text that no save has put in force. */
export const hasUnsavedCard = (s: S): boolean => s.selected !== null && s.card.draft !== s.card.savedText;
export const cardDiscardAsked = (s: S, next: string): S => (s.selected === null ? s : { ...s, cardDiscard: { agentId: s.selected, next } });
export const cardDiscardSettled = (s: S): S => (s.cardDiscard ? { ...s, cardDiscard: null } : s);

/** Another agent is shown: its series, violations, card and inspector start empty. */
export function agentSelected(s: S, agentId: string): S {
  if (s.selected === agentId) return s;
  return { ...s, selected: agentId, ...agentFresh };
}

export const seriesLoading = (s: S): S => ({ ...s, seriesStatus: loading(s.seriesStatus), seriesError: null });
/** Traces of the selected agent recorded after what is held (all of them when nothing is held yet). */
export const seriesAppended = (s: S, more: SeriesColumns): S =>
  more.agentId === s.selected ? { ...s, series: appendSeries(s.series, more), seriesStatus: 'ready', seriesError: null } : s;
export const seriesFailed = (s: S, agentId: string, message: string): S =>
  agentId === s.selected ? { ...s, seriesStatus: failed(s.seriesStatus), seriesError: message } : s;

export const violationsLoading = (s: S): S => ({ ...s, violationsStatus: loading(s.violationsStatus), violationsError: null });
export const violationsLoaded = (s: S, agentId: string, violations: readonly AlignmentViolation[]): S =>
  agentId === s.selected ? { ...s, violations, violationsStatus: 'ready', violationsError: null } : s;
export const violationsFailed = (s: S, agentId: string, message: string): S =>
  agentId === s.selected ? { ...s, violationsStatus: failed(s.violationsStatus), violationsError: message } : s;

export const traceOpening = (s: S, traceId: string): S => ({ ...s, inspector: { traceId, status: 'loading', view: null, error: null } });
export const traceLoaded = (s: S, traceId: string, view: AlignmentTrace): S =>
  s.inspector.traceId === traceId ? { ...s, inspector: { traceId, status: 'ready', view, error: null } } : s;
export const traceFailed = (s: S, traceId: string, message: string): S =>
  s.inspector.traceId === traceId ? { ...s, inspector: { traceId, status: 'error', view: null, error: message } } : s;
export const traceClosed = (s: S): S => ({ ...s, inspector: initialInspector });

export const fleetLoading = (s: S): S => ({ ...s, fleetStatus: loading(s.fleetStatus), fleetError: null });
export const fleetLoaded = (s: S, fleet: AlignmentFleet): S => ({ ...s, fleet, fleetStatus: 'ready', fleetError: null });
export const fleetFailed = (s: S, message: string): S => ({ ...s, fleetStatus: failed(s.fleetStatus), fleetError: message });

/** The card as the editor shows it: the JSON, two-space indented. */
export const cardText = (card: AlignmentCardInForce['card']): string => `${JSON.stringify(card, null, 2)}\n`;

const withCard = (s: S, agentId: string, fn: (card: CardEditorState) => CardEditorState): S => (agentId === s.selected ? { ...s, card: fn(s.card) } : s);

export const cardLoading = (s: S): S => ({ ...s, card: { ...s.card, status: loading(s.card.status), error: null } });

/**
 * The card in force of `agentId`, read (on selection, after a save, after another card was put in
 * force). The editor takes it unless the person is editing a draft of their own, which stays.
 */
export function cardLoaded(s: S, agentId: string, inForce: AlignmentCardInForce): S {
  return withCard(s, agentId, (card) => {
    const text = cardText(inForce.card);
    const editing = card.status === 'ready' && card.draft !== card.savedText;
    const base = { ...card, status: 'ready' as const, error: null, inForce, savedText: text };
    if (editing) return base;
    return { ...base, draft: text, validation: { text, ok: true, problems: [] } };
  });
}
export const cardFailed = (s: S, agentId: string, message: string): S => withCard(s, agentId, (card) => ({ ...card, status: failed(card.status), error: message }));

/** The person typed; an earlier save's outcome is no longer news. */
export function cardDraftEdited(s: S, text: string): S {
  if (s.card.status !== 'ready' || s.card.draft === text) return s;
  return { ...s, card: { ...s.card, draft: text, save: s.card.save.phase === 'saving' ? s.card.save : idleSave } };
}

/** The draft goes back to the card in force. */
export const cardDraftDiscarded = (s: S): S =>
  s.card.draft === s.card.savedText ? s : { ...s, card: { ...s.card, draft: s.card.savedText, save: idleSave } };

export const cardValidating = (s: S): S => ({ ...s, card: { ...s.card, validating: true } });
export const cardValidated = (s: S, agentId: string, validation: CardValidation): S =>
  withCard(s, agentId, (card) => ({ ...card, validation, validating: false, validateError: null }));
export const cardValidateFailed = (s: S, agentId: string, message: string): S => withCard(s, agentId, (card) => ({ ...card, validating: false, validateError: message }));

export const cardSaving = (s: S): S => ({ ...s, card: { ...s.card, save: { phase: 'saving', message: null } } });

/** Saved and signed: the saved draft is the new baseline until the card in force is read back. */
export const cardSaved = (s: S, agentId: string, text: string, cardId: string): S =>
  withCard(s, agentId, (card) => ({ ...card, savedText: text, save: { phase: 'saved', message: `Saved and signed: card ${cardId} is now in force.` } }));
export const cardSaveFailed = (s: S, agentId: string, message: string): S => withCard(s, agentId, (card) => ({ ...card, save: { phase: 'error', message } }));

/** The runtime's verdict on exactly the draft; null while that text has not been checked. */
export function currentCardValidation(card: CardEditorState): CardValidation | null {
  return card.validation && card.validation.text === card.draft ? card.validation : null;
}

/** Why "Save and sign" is disabled now, or null when it is not. */
export function cardSaveBlockReason(card: CardEditorState): string | null {
  if (card.status !== 'ready') return 'The card in force is not loaded yet';
  if (card.save.phase === 'saving') return 'Saving…';
  if (card.draft === card.savedText) return 'No changes to save';
  const validation = currentCardValidation(card);
  if (!validation) return 'Checking the card…';
  const count = validation.problems.length;
  if (count > 0) return `Fix the ${count} ${count === 1 ? 'problem' : 'problems'} first`;
  if (!validation.ok) return 'The card does not validate yet';
  return null;
}
