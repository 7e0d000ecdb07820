import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import type { StructuredOutputEvent } from '../../src-shared/silas/agents.js';
import type { WorkItem } from '../../src-shared/silas/work.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { openHome } from './home.js';
import type { SecretStore } from '../keys/secret-store.js';
import { createModelClient } from '../llm/ai-sdk-client.js';
import { isModelError } from '../llm/errors.js';
import type { StateSeals } from '../keys/sealed-state.js';
import { trustedModelsConfig } from '../llm/sealed-models.js';
import { baseUrlOf, readApiKey } from '../llm/providers.js';
import { executorAgent } from '../silas/agents/definitions.js';
import { LlmExecutorAgent } from '../silas/agents/llm-executor-agent.js';
import { modelStructuredCall, type ModelCallRecord } from '../silas/agents/model-call.js';
import type { RecordingAuditLog } from '../silas/executor/audit.js';
import type { ExecutorAgent } from '../silas/executor/types.js';

/*
 * `silas run --agent llm`: the executor role's model from HOME/models.json behind the LLM
 * executor agent, with its structured-output repairs and fallbacks and every call's usage in the
 * ledger. Everything that can be known before the run is checked before anyone is asked to
 * approve it: a run that could only fail should not cost the person an approval.
 */

const ROLE: ModelRole = 'executor';

export interface LlmExecutorSetup {
  /** For the run's header: role, provider, model and where it is served. */
  description: string;
  agentFor(item: WorkItem, audit: Pick<RecordingAuditLog, 'append'>): ExecutorAgent;
}

/**
 * The configured executor model, or a SilasError that says which command sets it up. models.json
 * counts only as Silas sealed it, and the key goes only to the origin it was stored for; both
 * refusals are audited through `seals` (docs/silas/models.md).
 */
export function prepareLlmExecutor(home: string, secretStore: SecretStore, seals: StateSeals): LlmExecutorSetup {
  const config = trustedModelsConfig(home, seals)[ROLE];
  if (config === undefined) {
    throw new SilasError(ErrorCode.Config, `no model configured for the ${ROLE} role: run \`silas models set ${ROLE} --provider … --model …\` (see \`silas models --help\`)`);
  }
  const secrets = new NamedSecrets(secretStore, { onWithheld: (refusal, origin) => seals.report(refusal, origin) });
  checkKey(config, secrets);
  const client = createModelClient(ROLE, config, { secrets });
  return {
    description: `${ROLE} model "${config.model}" (${config.provider} at ${baseUrlOf(config)})`,
    agentFor: (item, audit) => {
      const scope = { work_item_id: item.id };
      const usage = (record: ModelCallRecord) =>
        audit.append('silas.agent.model_usage', {
          ...scope,
          agent: 'executor',
          role: ROLE,
          provider: config.provider,
          model: config.model,
          input_tokens: record.usage.inputTokens,
          output_tokens: record.usage.outputTokens,
          cost_usd: record.costUsd,
          repair: record.repair,
        });
      return new LlmExecutorAgent({
        call: modelStructuredCall({ client, schema: executorAgent.schema, ...(config.price ? { price: config.price } : {}), onCall: usage }),
        audit: (event) => auditStructuredOutput(audit, scope, event),
      });
    },
  };
}

/** The key is read now only to fail early; the client reads it again at each call (a key set meanwhile is used). */
function checkKey(config: RoleModelConfig, secrets: NamedSecrets): void {
  try {
    readApiKey(ROLE, config, secrets);
  } catch (error) {
    if (isModelError(error)) throw new SilasError(ErrorCode.KeyMissing, error.message);
    throw error;
  }
}

/**
 * `silas run --agent llm`: the executor model checked on this home's ledger (opened for the check
 * only, so refusals are recorded), before anyone is asked to approve.
 */
export function prepareLlmExecutorForRun(home: string, secretStore: SecretStore): LlmExecutorSetup {
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore });
  try {
    return prepareLlmExecutor(home, secretStore, ledger.seals);
  } finally {
    ledger.close();
  }
}

function auditStructuredOutput(audit: Pick<RecordingAuditLog, 'append'>, scope: { work_item_id?: string }, event: StructuredOutputEvent): void {
  if (event.kind === 'repaired') {
    audit.append('silas.agent.output_repaired', { ...scope, agent: event.agent, first_error: event.first_error });
    return;
  }
  const { kind: _kind, ...data } = event;
  audit.append('silas.agent.output_fallback', { ...scope, ...data });
}
