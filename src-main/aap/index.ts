/*
 * The Agent Alignment Protocol core (spec 003, issue 15 items 1–5): pure functions over cards and
 * traces, plus the two stateful pieces a runtime holds — a drift monitor per agent and a handshake
 * endpoint per agent. docs/aap.md describes each; models and results live in src-shared/aap.
 */
export { actionParts, forbiddenMatch, isBounded } from './action-names.js';
export { compileAlignmentCard, validateCard, type CardCompileResult, type CompiledCard, type CompiledTrigger } from './card.js';
export { checkCoherence, coherenceScore, findConflicts, type CoherenceOptions, type CoherenceParty } from './coherence.js';
export { compileCondition, conditionProblem, CONDITION_LIMITS, traceScope, type CompiledCondition, type CompileResult, type FieldResolver } from './conditions/index.js';
export { runAapConformance, type AapConformanceReport, type CaseResult } from './conformance/runner.js';
export { baselineSize, chronological, detectDrift, type DriftCard, type DriftOptions, type DriftReport, type TraceSimilarity } from './drift.js';
export { DriftMonitor, type DriftMonitorOptions, type DriftMonitorSnapshot, type DriftObservation } from './drift-monitor.js';
export { centroid, cosineSimilarity, extractCardFeatures, extractTraceFeatures, indexCardFeatures, similarityToCard, type FeatureVector } from './features.js';
export { checkFleetCoherence, type FleetCoherence, type FleetMember } from './fleet.js';
export { HandshakeEndpoint, type HandshakeDependencies, type Received } from './handshake.js';
export { loadCard, loadTrace, loadTraces, validateCardDocument, validateTraceDocument, type LoadedCard } from './load.js';
export { MessageReplayGuard, systemClock, type Clock, type ReplayCheck, type ReplayWindowOptions } from './replay-guard.js';
export { recommendedAction, verifyTrace, type VerifyOptions } from './verify.js';
