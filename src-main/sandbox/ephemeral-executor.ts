import { isSilasError } from '../../src-shared/errors.js';
import {
  ExecutionEnvelope,
  ExecutionResult,
  SandboxErrorCode,
  type ExecutionEnvelopeInput,
} from '../../src-shared/silas/execution.js';
import type { Sandbox, SandboxManager, SandboxRunResult } from './types.js';

/** PATH inside the sandbox: the system directories only, never a user's pyenv or npm shims. */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** §4.6 EphemeralExecutor. */
export interface EphemeralExecutor {
  /** `signal` stops the command at once (the caller's run ended); the result is then a failure. */
  execute(envelope: ExecutionEnvelopeInput, options?: { signal?: AbortSignal }): Promise<ExecutionResult>;
}

export interface SandboxedExecutorOptions {
  manager: SandboxManager;
  /** How python_exec starts Python; the code is fed on stdin (`-`), so no file lands in the work dir. */
  pythonArgv?: readonly string[];
}

type Command = { argv: string[]; stdin?: string };

/** Maps an action and its arguments to a command, or says what is wrong with them. */
function commandFor(envelope: ExecutionEnvelope, pythonArgv: readonly string[]): Command | string {
  const { action, args } = envelope;
  if (action === 'shell_exec') {
    const command = args.command;
    if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string') || command[0] === '') {
      return 'shell_exec: args.command must be a non-empty argument list of strings, e.g. ["ls", "-la"]; shell strings are not accepted';
    }
    return { argv: command as string[] };
  }
  if (action === 'python_exec') {
    if (typeof args.code !== 'string') return 'python_exec: args.code must be a string of Python source';
    return { argv: [...pythonArgv, '-'], stdin: args.code };
  }
  return `Unknown action "${action}": this executor runs shell_exec and python_exec`;
}

/**
 * Runs one envelope in a fresh sandbox and destroys it: nothing survives between executions but
 * what the process wrote to its work dir and write paths. The environment is PATH, HOME (the work
 * dir) and LANG, then SandboxConfig.env on top; nothing comes from this process's environment.
 */
export class SandboxedEphemeralExecutor implements EphemeralExecutor {
  private readonly pythonArgv: readonly string[];

  constructor(private readonly options: SandboxedExecutorOptions) {
    this.pythonArgv = options.pythonArgv ?? ['python3'];
  }

  async execute(input: ExecutionEnvelopeInput, options: { signal?: AbortSignal } = {}): Promise<ExecutionResult> {
    const started = performance.now();
    const parsed = ExecutionEnvelope.safeParse(input);
    const executionId = typeof input?.execution_id === 'string' ? input.execution_id : 'unknown';
    const stepIndex = Number.isInteger(input?.step_index) && input.step_index >= 0 ? input.step_index : 0;
    const fail = (error: string, metadata: Record<string, string> = {}): ExecutionResult =>
      ExecutionResult.parse({
        execution_id: executionId,
        step_index: stepIndex,
        success: false,
        return_value: '',
        error,
        metadata,
        duration_seconds: (performance.now() - started) / 1000,
      });
    if (!parsed.success) {
      const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(envelope)'}: ${issue.message}`).join('; ');
      return fail(`Invalid execution envelope: ${detail}`, { error_code: SandboxErrorCode.ConfigInvalid });
    }
    const envelope = parsed.data;
    const command = commandFor(envelope, this.pythonArgv);
    if (typeof command === 'string') return fail(command, { error_code: SandboxErrorCode.CommandInvalid });

    let sandbox: Sandbox | undefined;
    try {
      sandbox = await this.options.manager.create(envelope.sandbox_config);
      const run = await sandbox.run({
        argv: command.argv,
        stdin: command.stdin,
        env: { PATH: SANDBOX_PATH, HOME: sandbox.workDir, LANG: 'C.UTF-8', ...envelope.sandbox_config.env },
        timeoutMs: envelope.timeout_seconds * 1000,
        maxOutputBytes: envelope.max_output_bytes,
        signal: options.signal,
      });
      return this.toResult(envelope, sandbox, run, started);
    } catch (error) {
      const code = isSilasError(error) ? error.code : SandboxErrorCode.SpawnFailed;
      return fail(`${code}: ${(error as Error).message}`, { error_code: code });
    } finally {
      if (sandbox) await this.options.manager.destroy(sandbox.id);
    }
  }

  private toResult(envelope: ExecutionEnvelope, sandbox: Sandbox, run: SandboxRunResult, started: number): ExecutionResult {
    const success = !run.timedOut && run.exitCode === 0;
    const hit = [run.limits.process_limit_hit ? `max_processes ${run.limits.max_processes}` : '', run.limits.memory_limit_hit ? `max_memory_mb ${run.limits.max_memory_mb}` : ''].filter(Boolean);
    const limitNote = hit.length > 0 ? ` (the run reached its limit: ${hit.join(', ')})` : '';
    const error = run.timedOut ? `Timeout after ${envelope.timeout_seconds}s${limitNote}` : success ? null : `Exit code ${run.exitCode}${limitNote}`;
    return ExecutionResult.parse({
      execution_id: envelope.execution_id,
      step_index: envelope.step_index,
      success,
      return_value: run.stdout,
      content: run.stderr ? [{ type: 'stderr', text: run.stderr }] : [],
      // Application-only: never injected into model context (§3.7).
      metadata: {
        sandbox_id: sandbox.id,
        exit_code: run.exitCode,
        timed_out: run.timedOut,
        stdout_truncated: run.stdoutTruncated,
        stderr_truncated: run.stderrTruncated,
        stdout_bytes: run.stdoutBytes,
        stderr_bytes: run.stderrBytes,
        network_isolated: sandbox.enforcement.networkIsolated,
        memory_limit_enforced: sandbox.enforcement.memoryLimit,
        cpu_limit_enforced: sandbox.enforcement.cpuLimit,
        // The run's aggregate limits as enforced and whether it hit them (docs/silas/sandbox.md
        // "Aggregate run limits (cgroups)").
        sandbox_limits: { ...run.limits },
      },
      taint: 'external',
      error,
      duration_seconds: (performance.now() - started) / 1000,
    });
  }
}
