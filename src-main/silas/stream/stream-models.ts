import { MODEL_ROLES, baseUrlOf, type ModelPrice, type ModelRole, type ModelsConfig, type RoleModelConfig } from '../../../src-shared/llm/config.js';
import type { ModelRoleStatus, ModelsStatus } from '../../../src-shared/schemas/stream.js';
import { isSilasError } from '../../../src-shared/errors.js';
import { isModelError } from '../../llm/errors.js';
import type { ModelClient } from '../../llm/model-client.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import { loadSealedModels } from '../../llm/sealed-models.js';
import { readApiKey, type SecretReader } from '../../llm/providers.js';

/**
 * The model of each role for the Stream, read from HOME/models.json at every turn (a model set
 * up in the cockpit or with `silas models set` is used from the next message, no restart), with
 * its key from the keyring at every call. A role that cannot be used is a `problem` that says
 * what to do: the first-run flow shows it (§1.5), never a stack trace. The file counts only as
 * Silas sealed it (llm/sealed-models.ts): one changed outside Silas is refused, audited, and every
 * role is then not set up until the person saves it again.
 */
export type RoleModel = { ok: true; client: ModelClient; price?: ModelPrice; config: RoleModelConfig } | { ok: false; problem: string };

export interface StreamModels {
  client(role: ModelRole): Promise<RoleModel>;
  status(): ModelsStatus;
}

/** The roles a conversation needs: the Proxy answers, the Planner plans, the executor runs. */
const CONVERSATION_ROLES: readonly ModelRole[] = ['proxy', 'planner', 'executor'];

/** Async so that the AI SDK is loaded with the first model call, not with the runtime. */
export type ClientFactory = (role: ModelRole, config: RoleModelConfig) => Promise<ModelClient>;

export class HomeStreamModels implements StreamModels {
  private readonly cache = new Map<ModelRole, { key: string; client: ModelClient }>();

  constructor(
    private readonly home: string,
    private readonly secrets: SecretReader,
    private readonly createClient: ClientFactory,
    private readonly seals: StateSeals,
  ) {}

  async client(role: ModelRole): Promise<RoleModel> {
    const loaded = this.load();
    if (!loaded.ok) return loaded;
    const config = loaded.config[role];
    if (config === undefined) return { ok: false, problem: missingRole(role) };
    const keyProblem = this.keyProblem(role, config);
    if (keyProblem !== null) return { ok: false, problem: keyProblem };
    // A client per configuration: one changed in the cockpit gets a new client, an unchanged one keeps its connections.
    const key = JSON.stringify(config);
    let cached = this.cache.get(role);
    if (cached?.key !== key) {
      cached = { key, client: await this.createClient(role, config) };
      this.cache.set(role, cached);
    }
    return { ok: true, client: cached.client, config, ...(config.price ? { price: config.price } : {}) };
  }

  status(): ModelsStatus {
    const loaded = this.load();
    if (!loaded.ok) return { ready: false, problem: loaded.problem, roles: MODEL_ROLES.map((role) => emptyRole(role, loaded.problem)) };
    const roles = MODEL_ROLES.map((role): ModelRoleStatus => {
      const config = loaded.config[role];
      if (config === undefined) return emptyRole(role, missingRole(role));
      const problem = this.keyProblem(role, config);
      return {
        role,
        configured: true,
        provider: config.provider,
        model: config.model,
        base_url: baseUrlOf(config),
        key_secret: config.apiKeySecret ?? null,
        key_present: config.apiKeySecret !== undefined && problem === null,
        problem,
      };
    });
    const ready = roles.filter((status) => CONVERSATION_ROLES.includes(status.role)).every((status) => status.configured && status.problem === null);
    return { ready, problem: null, roles };
  }

  private load(): { ok: true; config: ModelsConfig } | { ok: false; problem: string } {
    try {
      const loaded = loadSealedModels(this.home, this.seals);
      return loaded.ok ? { ok: true, config: loaded.config } : { ok: false, problem: loaded.problem };
    } catch (error) {
      if (isSilasError(error)) return { ok: false, problem: error.message };
      throw error;
    }
  }

  private keyProblem(role: ModelRole, config: RoleModelConfig): string | null {
    try {
      readApiKey(role, config, this.secrets);
      return null;
    } catch (error) {
      if (isModelError(error)) return error.message;
      throw error;
    }
  }
}

function missingRole(role: ModelRole): string {
  return `no model is set up for the ${role} role: choose one on the cockpit's Stream page, or run \`silas models set ${role} --provider … --model …\``;
}

function emptyRole(role: ModelRole, problem: string): ModelRoleStatus {
  return { role, configured: false, provider: null, model: null, base_url: null, key_secret: null, key_present: false, problem };
}
