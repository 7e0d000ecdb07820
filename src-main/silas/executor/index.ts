// Public surface of the work item executor (spec 002 §4.12, §5.2).
export { WorkItemExecutor, type AuthorizeResult } from './executor.js';
export { DEFAULT_LIMITS, RUN_NONCE_DOMAIN, type ExecutorDeps, type ExecutorLimits } from './deps.js';
export type {
  AttemptFailure,
  ExecutorAgent,
  ExecutorAgentContext,
  ExecutorAuditSink,
  GateApprovalRequest,
  GateApprovalRequester,
  PlannerConsultant,
  PlannerConsultation,
  PlannerGuidance,
  StepOutcome,
  StepReport,
  ToolCall,
  ToolCallOutcome,
  Verifier,
} from './types.js';
export { ScriptedExecutorAgent, ScriptParseError, parseScriptedCalls, type Script, type ScriptedAgentOptions, type ScriptedStep } from './scripted-agent.js';
export { BudgetTracker, type BudgetAction } from './budget.js';
export { builtinTools, pythonExecTool, shellExecTool, type ToolDefinition, type ToolRegistry } from './tools.js';
export { RecordingAuditLog } from './audit.js';
export { projectOrder, dependentsOf, type ProjectOrder } from './project-order.js';
export { buildFixTask, describeFailedChecks, spawnsFixTasks } from './goal-cycle.js';
export { buildInstructions } from './task-runner.js';
export {
  BatchRunner,
  DEFAULT_BATCH_SIZE,
  type BatchActionHandler,
  type BatchOutcome,
  type BatchOutcomeRecorder,
  type BatchReviewAnswer,
  type BatchReviewer,
  type BatchRunRequest,
} from './batch.js';
export { createSandboxedExecutor, type ExecutorOnLedgerOptions } from './compose.js';
