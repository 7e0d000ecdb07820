import type { z } from 'zod';
import { modelsConfigProblems, RoleModelConfig, type ModelRole } from '../../../src-shared/llm/config.js';
import type { ModelsConfigureArgs, ModelsStatus, ModelsTestResult } from '../../../src-shared/schemas/stream.js';

type ConfigureArgs = z.output<typeof ModelsConfigureArgs>;
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { NamedSecrets } from '../../keys/named-secrets.js';
import { loadModelsFile, readModelsFileRaw, saveModelsFile } from '../../llm/models-file.js';
import { probeModel } from '../../llm/probe.js';
import type { StreamModels } from './stream-models.js';

/**
 * First run from the cockpit (spec 002 §1.5, issue 13 item 7): choose a provider and a model for
 * the roles, put the API key in the OS keyring, and make a test call. The key is written to the
 * keyring before the configuration that names it and is never returned, logged or audited; the
 * models file gets the secret's name only (DESIGN invariant 5).
 */
export interface ModelSetupService {
  status(): ModelsStatus;
  /** §8.1 secure input: the value goes to the keyring and nowhere else; `channel` is recorded, the value never. */
  storeSecret(name: string, value: string, channel: string): { stored: true };
  configure(args: ConfigureArgs): ModelsStatus;
  test(role: ModelRole): Promise<ModelsTestResult>;
}

export interface ModelSetupDeps {
  home: string;
  secrets: NamedSecrets;
  models: StreamModels;
  audit: Pick<AuditLog, 'append'>;
}

export function createModelSetup(deps: ModelSetupDeps): ModelSetupService {
  return {
    status: () => deps.models.status(),
    configure(args: ConfigureArgs) {
      const secretName = args.api_key_secret;
      const role = {
        provider: args.provider,
        model: args.model,
        ...(args.base_url !== undefined && args.base_url !== '' ? { baseUrl: args.base_url } : {}),
        ...(secretName !== undefined ? { apiKeySecret: secretName } : {}),
      };
      const checked = RoleModelConfig.safeParse(role);
      if (!checked.success) throw new SilasError(ErrorCode.InvalidArgs, modelsConfigProblems(checked.error, 'model').join('; '));
      const { raw } = readModelsFileRaw(deps.home);
      const next = { ...raw };
      for (const name of args.roles) next[name] = role;
      const saved = saveModelsFile(deps.home, next);
      if (!saved.ok) throw new SilasError(ErrorCode.InvalidArgs, saved.problems.join('; '));
      deps.audit.append('operator.models_configured', { roles: [...args.roles], provider: args.provider, model: args.model, key_secret: secretName ?? null });
      return deps.models.status();
    },
    storeSecret(name, value, channel) {
      deps.secrets.set(name, value);
      deps.audit.append('operator.secret_stored', { name, channel });
      return { stored: true };
    },
    async test(role) {
      const config = loadModelsFile(deps.home).config[role];
      if (config === undefined) return { ok: false, role, latency_ms: 0, message: `no model is set up for the ${role} role yet; save one first` };
      const result = await probeModel(role, config, deps.secrets);
      if (result.ok) return { ok: true, role, latency_ms: result.latencyMs, message: `${config.provider} answered with model "${config.model}" in ${result.latencyMs} ms` };
      return { ok: false, role, latency_ms: 0, message: result.message };
    },
  };
}
