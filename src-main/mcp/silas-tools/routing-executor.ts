import { ExecutionResult, type ExecutionEnvelopeInput } from '../../../src-shared/silas/execution.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import type { EphemeralExecutor } from '../../sandbox/ephemeral-executor.js';
import type { McpToolbox } from './mcp-toolbox.js';

/**
 * The executor's one way to run a tool call (§4.6), for both kinds of tool: `mcp__…` calls go to
 * the server's proxy (which governs them), every other action to the sandbox. The executor's
 * gates, budget and ledger entries are the same for both.
 */
export class RoutingEphemeralExecutor implements EphemeralExecutor {
  constructor(
    private readonly sandbox: EphemeralExecutor,
    private readonly toolbox: McpToolbox,
  ) {}

  async execute(envelope: ExecutionEnvelopeInput, options: { signal?: AbortSignal } = {}): Promise<ExecutionResult> {
    if (!this.toolbox.has(envelope.action)) return this.sandbox.execute(envelope, options);
    const started = performance.now();
    const answer = await this.toolbox.call(envelope.action, envelope.args as JsonObject, options.signal);
    const max = envelope.max_output_bytes ?? 100_000;
    return ExecutionResult.parse({
      execution_id: envelope.execution_id,
      step_index: envelope.step_index,
      success: answer.ok,
      return_value: answer.text.slice(0, max),
      error: answer.error === null ? null : answer.error.slice(0, 2000),
      taint: 'external',
      metadata: { via: 'silas proxy' },
      duration_seconds: (performance.now() - started) / 1000,
    });
  }
}
