import type { StateCreator } from 'zustand';
import { auditCategory } from '../../src-shared/audit/events.js';
import type { SeriesColumns } from './alignment-series.js';
import * as r from './alignment-state.js';
import type { AlignmentAgentView, AlignmentCardInForce, AlignmentFleet, AlignmentState, AlignmentTrace, AlignmentViolation, CardValidation } from './alignment-state.js';
import type { CockpitState } from './cockpit-store.js';

export interface AlignmentSlice {
  alignment: AlignmentState;
  alignmentAgentsLoading(): void;
  alignmentAgentsLoaded(agents: readonly AlignmentAgentView[]): void;
  alignmentAgentsFailed(message: string): void;
  alignmentAgentSelected(agentId: string): void;
  alignmentCardDiscardAsked(next: string): void;
  alignmentCardDiscardSettled(): void;
  alignmentSeriesLoading(): void;
  alignmentSeriesAppended(more: SeriesColumns): void;
  alignmentSeriesFailed(agentId: string, message: string): void;
  alignmentViolationsLoading(): void;
  alignmentViolationsLoaded(agentId: string, violations: readonly AlignmentViolation[]): void;
  alignmentViolationsFailed(agentId: string, message: string): void;
  alignmentTraceOpening(traceId: string): void;
  alignmentTraceLoaded(traceId: string, view: AlignmentTrace): void;
  alignmentTraceFailed(traceId: string, message: string): void;
  alignmentTraceClosed(): void;
  alignmentFleetLoading(): void;
  alignmentFleetLoaded(fleet: AlignmentFleet): void;
  alignmentFleetFailed(message: string): void;
  alignmentCardLoading(): void;
  alignmentCardLoaded(agentId: string, inForce: AlignmentCardInForce): void;
  alignmentCardFailed(agentId: string, message: string): void;
  alignmentCardEdited(text: string): void;
  alignmentCardDiscarded(): void;
  alignmentCardValidating(): void;
  alignmentCardValidated(agentId: string, validation: CardValidation): void;
  alignmentCardValidateFailed(agentId: string, message: string): void;
  alignmentCardSaving(): void;
  alignmentCardSaved(agentId: string, text: string, cardId: string): void;
  alignmentCardSaveFailed(agentId: string, message: string): void;
}

export const createAlignmentSlice: StateCreator<CockpitState, [], [], AlignmentSlice> = (set) => {
  const update = (fn: (s: AlignmentState) => AlignmentState) => set((state) => ({ alignment: fn(state.alignment) }));
  return {
    alignment: r.initialAlignment,
    alignmentAgentsLoading: () => update(r.agentsLoading),
    alignmentAgentsLoaded: (agents) => update((s) => r.agentsLoaded(s, agents)),
    alignmentAgentsFailed: (message) => update((s) => r.agentsFailed(s, message)),
    alignmentAgentSelected: (agentId) => update((s) => r.agentSelected(s, agentId)),
    alignmentCardDiscardAsked: (next) => update((s) => r.cardDiscardAsked(s, next)),
    alignmentCardDiscardSettled: () => update(r.cardDiscardSettled),
    alignmentSeriesLoading: () => update(r.seriesLoading),
    alignmentSeriesAppended: (more) => update((s) => r.seriesAppended(s, more)),
    alignmentSeriesFailed: (agentId, message) => update((s) => r.seriesFailed(s, agentId, message)),
    alignmentViolationsLoading: () => update(r.violationsLoading),
    alignmentViolationsLoaded: (agentId, violations) => update((s) => r.violationsLoaded(s, agentId, violations)),
    alignmentViolationsFailed: (agentId, message) => update((s) => r.violationsFailed(s, agentId, message)),
    alignmentTraceOpening: (traceId) => update((s) => r.traceOpening(s, traceId)),
    alignmentTraceLoaded: (traceId, view) => update((s) => r.traceLoaded(s, traceId, view)),
    alignmentTraceFailed: (traceId, message) => update((s) => r.traceFailed(s, traceId, message)),
    alignmentTraceClosed: () => update(r.traceClosed),
    alignmentFleetLoading: () => update(r.fleetLoading),
    alignmentFleetLoaded: (fleet) => update((s) => r.fleetLoaded(s, fleet)),
    alignmentFleetFailed: (message) => update((s) => r.fleetFailed(s, message)),
    alignmentCardLoading: () => update(r.cardLoading),
    alignmentCardLoaded: (agentId, inForce) => update((s) => r.cardLoaded(s, agentId, inForce)),
    alignmentCardFailed: (agentId, message) => update((s) => r.cardFailed(s, agentId, message)),
    alignmentCardEdited: (text) => update((s) => r.cardDraftEdited(s, text)),
    alignmentCardDiscarded: () => update(r.cardDraftDiscarded),
    alignmentCardValidating: () => update(r.cardValidating),
    alignmentCardValidated: (agentId, validation) => update((s) => r.cardValidated(s, agentId, validation)),
    alignmentCardValidateFailed: (agentId, message) => update((s) => r.cardValidateFailed(s, agentId, message)),
    alignmentCardSaving: () => update(r.cardSaving),
    alignmentCardSaved: (agentId, text, cardId) => update((s) => r.cardSaved(s, agentId, text, cardId)),
    alignmentCardSaveFailed: (agentId, message) => update((s) => r.cardSaveFailed(s, agentId, message)),
  };
};

/** Audit events the Alignment page reacts to: traces, violations, drift alerts, cards put in force or refused. */
export function affectsAlignment(event: string): boolean {
  return auditCategory(event) === 'alignment';
}
