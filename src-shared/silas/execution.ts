import { z } from 'zod';
import { JsonObject, JsonValue } from '../schemas/json.js';

/**
 * Execution models of spec 002 §3.7 (plus TaintLevel of §3.1 and the VerificationReport of
 * §4.10). Field names keep the spec's snake_case because these objects cross the plan/wire
 * boundary exactly as the spec names them (plan YAML, `silas verify --json`).
 */

/** §3.1: trust classification of a message or of execution output. */
export const TaintLevel = z.enum(['owner', 'auth', 'external']);
export type TaintLevel = z.infer<typeof TaintLevel>;

/** Error codes of the `E_SANDBOX_*` family (§18.1): the work item fails, verification is never bypassed. */
export const SandboxErrorCode = {
  /** network_access=false (or a check without `network: true`) but the OS cannot enforce it. */
  NetworkUnavailable: 'E_SANDBOX_NETWORK_UNAVAILABLE',
  /** A configured read/write path or work_dir is unusable (relative, `..`, missing, or the host root). */
  PathInvalid: 'E_SANDBOX_PATH_INVALID',
  /** The requested backend is not implemented here (e.g. `docker`). */
  BackendUnavailable: 'E_SANDBOX_BACKEND_UNAVAILABLE',
  /** The command is not an argument list of non-empty strings. */
  CommandInvalid: 'E_SANDBOX_COMMAND_INVALID',
  /** The SandboxConfig or a run request does not validate. */
  ConfigInvalid: 'E_SANDBOX_CONFIG_INVALID',
  /** The sandbox id is unknown or was destroyed. */
  NotFound: 'E_SANDBOX_NOT_FOUND',
  /** The process could not be started. */
  SpawnFailed: 'E_SANDBOX_SPAWN_FAILED',
  /** `resource_limits: required` but the run's aggregate process/memory limits (cgroups) cannot be enforced here. */
  LimitUnavailable: 'E_SANDBOX_LIMIT_UNAVAILABLE',
} as const;
export type SandboxErrorCode = (typeof SandboxErrorCode)[keyof typeof SandboxErrorCode];

/** POSIX-portable environment variable names; `=` or NUL in a name would corrupt the environment block. */
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'environment variable names must match [A-Za-z_][A-Za-z0-9_]*');
const EnvValue = z
  .string()
  .max(32_768)
  .refine((value) => !value.includes('\0'), 'environment values must not contain NUL');
/** An environment block: exactly these variables, nothing inherited. */
export const SandboxEnv = z.record(EnvName, EnvValue);
export type SandboxEnv = z.infer<typeof SandboxEnv>;
const HostPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((value) => !value.includes('\0'), 'paths must not contain NUL');

/** §3.7 SandboxConfig. `backend: null` means "use the global config" (`sandbox.backend`). */
export const SandboxConfig = z
  .object({
    backend: z.enum(['subprocess', 'docker']).nullable().default(null),
    work_dir: HostPath.default('./data/sandbox/work'),
    network_access: z.boolean().default(false),
    filesystem_read: z.array(HostPath).max(64).default([]),
    filesystem_write: z.array(HostPath).max(64).default([]),
    max_memory_mb: z.number().int().min(16).max(1_048_576).default(512),
    max_cpu_seconds: z.number().int().min(1).max(86_400).default(60),
    /** Processes and threads alive at once in one run, all together (a cgroup's pids.max). */
    max_processes: z.number().int().min(1).max(32_768).default(256),
    /**
     * `required`: a run whose aggregate limits (max_processes, and max_memory_mb for all its
     * processes together) cannot be enforced is refused with E_SANDBOX_LIMIT_UNAVAILABLE.
     * `best_effort`: it runs with the per-process limits only, and says so in its result.
     */
    resource_limits: z.enum(['required', 'best_effort']).default('required'),
    env: SandboxEnv.default({}),
  })
  .strict();
export type SandboxConfig = z.infer<typeof SandboxConfig>;
export type SandboxConfigInput = z.input<typeof SandboxConfig>;

/** §3.7 ExecutionEnvelope: everything an ephemeral executor receives, nothing more. */
export const ExecutionEnvelope = z
  .object({
    execution_id: z.string().min(1).max(200),
    step_index: z.number().int().min(0),
    task_description: z.string().max(200_000),
    action: z.string().min(1).max(100),
    args: JsonObject,
    input_artifacts: z.record(z.string(), z.string()).default({}),
    /** Opaque keyring reference ids only, never secret values (§0.5). */
    credential_refs: z.record(z.string(), z.string().max(200)).default({}),
    timeout_seconds: z.number().int().min(1).max(86_400).default(300),
    max_output_bytes: z.number().int().min(1).max(64 * 1024 * 1024).default(100_000),
    sandbox_config: SandboxConfig,
  })
  .strict();
export type ExecutionEnvelope = z.infer<typeof ExecutionEnvelope>;
export type ExecutionEnvelopeInput = z.input<typeof ExecutionEnvelope>;

/** §3.7 ExecutionResult. `metadata` is application-only and never enters model context. */
export const ExecutionResult = z
  .object({
    execution_id: z.string(),
    step_index: z.number().int().min(0),
    success: z.boolean(),
    return_value: z.string(),
    content: z.array(JsonObject).default([]),
    metadata: z.record(z.string(), JsonValue).default({}),
    artifacts: z.record(z.string(), z.string()).default({}),
    taint: TaintLevel.default('external'),
    error: z.string().nullable().default(null),
    duration_seconds: z.number().min(0),
    tokens_used: z.number().int().min(0).default(0),
    cost_usd: z.number().min(0).default(0),
  })
  .strict();
export type ExecutionResult = z.infer<typeof ExecutionResult>;

/** §3.7 ExecutorAgentOutput: the structured output of executor-agent reasoning. */
export const ExecutorAgentOutput = z
  .object({
    summary: z.string(),
    artifact_refs: z.array(z.string()).default([]),
    next_steps: z.array(z.string()).default([]),
  })
  .strict();
export type ExecutorAgentOutput = z.infer<typeof ExecutorAgentOutput>;

/** §4.10: output kept in a VerificationResult is truncated to this many characters. */
export const VERIFICATION_OUTPUT_MAX_CHARS = 1000;

/** §4.10 VerificationResult. `exit_code` is null when the command never ran or was killed. */
export const VerificationResult = z
  .object({
    name: z.string(),
    passed: z.boolean(),
    reason: z.string(),
    output: z.string().max(VERIFICATION_OUTPUT_MAX_CHARS),
    exit_code: z.number().int().nullable(),
  })
  .strict();
export type VerificationResult = z.infer<typeof VerificationResult>;

/** §4.10 VerificationReport. `timestamp` is ISO-8601 UTC. */
export const VerificationReport = z
  .object({
    all_passed: z.boolean(),
    results: z.array(VerificationResult),
    failed: z.array(VerificationResult),
    timestamp: z.iso.datetime({ offset: true }),
  })
  .strict();
export type VerificationReport = z.infer<typeof VerificationReport>;
