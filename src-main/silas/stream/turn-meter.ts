import type { ModelRole } from '../../../src-shared/llm/config.js';
import type { TurnUsage } from '../../../src-shared/schemas/stream.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ModelClient } from '../../llm/model-client.js';
import type { ModelCallRecord } from '../agents/model-call.js';

/**
 * What one turn spent (the Stream page shows a cost and token meter per turn; §5.13 counts every
 * prompt): the counted prompt tokens, the provider's reported tokens and the priced cost of every
 * model call, each call also a `silas.agent.model_usage` entry in the ledger.
 */
export class TurnMeter {
  private promptTokens = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private cost: number | null = null;
  private calls = 0;

  countPrompt(tokens: number): void {
    this.promptTokens += tokens;
  }

  add(role: ModelRole, record: ModelCallRecord, audit: Pick<AuditLog, 'append'>, at: { scope_id: string; turn: number }, client: Pick<ModelClient, 'provider' | 'model'>): void {
    this.calls += 1;
    this.inputTokens += record.usage.inputTokens;
    this.outputTokens += record.usage.outputTokens;
    if (record.costUsd !== null) this.cost = (this.cost ?? 0) + record.costUsd;
    audit.append('silas.agent.model_usage', {
      ...at,
      agent: role,
      role,
      provider: client.provider,
      model: client.model,
      input_tokens: record.usage.inputTokens,
      output_tokens: record.usage.outputTokens,
      cost_usd: record.costUsd,
      repair: record.repair,
    });
  }

  usage(): TurnUsage {
    return { prompt_tokens: this.promptTokens, input_tokens: this.inputTokens, output_tokens: this.outputTokens, cost_usd: this.cost, model_calls: this.calls };
  }
}
