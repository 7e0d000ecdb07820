export { ActiveGateSet, GateRunner, type GateCheckOptions, type GateCheckOutcome, type GateRunnerDeps } from './runner.js';
export {
  checkOnce,
  GATE_CONFIG_ERROR,
  GateConfigError,
  lookupPath,
  RUNNER_CONFIG_KEYS,
  type GateAuditSink,
  type GateCheckProvider,
  type GateVerdict,
  type PreparedGateCheck,
} from './provider.js';
export { applyMutations, type MutationOutcome, type RejectedMutation } from './mutations.js';
export { PredicateGateProvider, type PredicateProviderOptions } from './predicate-provider.js';
export { ScriptGateProvider, type ScriptProviderOptions } from './script-provider.js';
export { spawnScript, type ScriptRunRequest, type ScriptRunResult, type ScriptSpawner } from './spawn.js';
export { ContentGateProvider } from './content-provider.js';
export { LlmGateProvider, type QualityJudge, type QualityJudgeRequest } from './llm-provider.js';
export { CustomGateProvider, type CustomGateCheck } from './custom-provider.js';
export { redactForAudit } from './audit-redact.js';
