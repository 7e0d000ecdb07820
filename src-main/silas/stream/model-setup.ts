import type { z } from 'zod';
import { MODEL_ROLES, modelsConfigProblems, RoleModelConfig, type ModelRole, type ModelsConfig } from '../../../src-shared/llm/config.js';
import type { ModelsConfigureArgs, ModelsStatus, ModelsTestResult } from '../../../src-shared/schemas/stream.js';

type ConfigureArgs = z.output<typeof ModelsConfigureArgs>;
import { ErrorCode, isSilasError, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { NamedSecrets } from '../../keys/named-secrets.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import { baseUrlOf } from '../../../src-shared/llm/config.js';
import { loadSealedModels, saveSealedModels } from '../../llm/sealed-models.js';
import { probeModel } from '../../llm/probe.js';
import type { StreamModels } from './stream-models.js';

/**
 * First run from the cockpit (spec 002 §1.5): choose a provider and a model for the roles, put the
 * API key in the OS keyring, and make a test call. The key is written to the keyring before the
 * configuration that names it and is never returned, logged or audited; the models file gets the
 * secret's name only (DESIGN invariant 5). Saving is the person's decision (the `decide` capability
 * of the cockpit credential): the file is sealed with the owner key and anchored in the keyring,
 * and the key's secret is bound to the new base URL's origin, so it is released there and nowhere
 * else (docs/silas/models.md).
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
  seals: StateSeals;
}

/** The base URLs of the roles whose key is in secret `name`. */
function urlsUsing(config: ModelsConfig, name: string): string[] {
  return MODEL_ROLES.flatMap((role) => (config[role]?.apiKeySecret === name ? [baseUrlOf(config[role])] : []));
}

/** The roles as Silas sealed them; {} when the file is absent, refused or unreadable. */
function trustedRaw(deps: ModelSetupDeps): Record<string, unknown> {
  try {
    const current = loadSealedModels(deps.home, deps.seals);
    return current.ok ? current.raw : {};
  } catch (error) {
    if (isSilasError(error)) return {};
    throw error;
  }
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
      // The other roles are kept only as Silas sealed them: a file changed outside Silas starts afresh.
      const next: Record<string, unknown> = { ...trustedRaw(deps) };
      for (const name of args.roles) next[name] = role;
      const saved = saveSealedModels(deps.home, next, deps.seals);
      if (!saved.ok) throw new SilasError(ErrorCode.InvalidArgs, saved.problems.join('; '));
      // The key goes where the person's saved roles send it, and nowhere else (a provider left behind no longer gets it).
      if (secretName !== undefined) deps.secrets.bindOrigins(secretName, urlsUsing(saved.config, secretName));
      deps.audit.append('operator.models_configured', { roles: [...args.roles], provider: args.provider, model: args.model, key_secret: secretName ?? null });
      return deps.models.status();
    },
    storeSecret(name, value, channel) {
      deps.secrets.set(name, value);
      deps.audit.append('operator.secret_stored', { name, channel });
      return { stored: true };
    },
    async test(role) {
      const loaded = loadSealedModels(deps.home, deps.seals);
      if (!loaded.ok) return { ok: false, role, latency_ms: 0, message: loaded.problem };
      const config = loaded.config[role];
      if (config === undefined) return { ok: false, role, latency_ms: 0, message: `no model is set up for the ${role} role yet; save one first` };
      const result = await probeModel(role, config, deps.secrets);
      if (result.ok) return { ok: true, role, latency_ms: result.latencyMs, message: `${config.provider} answered with model "${config.model}" in ${result.latencyMs} ms` };
      return { ok: false, role, latency_ms: 0, message: result.message };
    },
  };
}
