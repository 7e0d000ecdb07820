import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { homePaths } from '../../home/paths.js';
import { saveModelsAsOwner } from '../../llm/testing/sealed-models.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { silentLogger } from '../logger.js';
import { buildRuntime } from '../runtime.js';
import type { Runtime } from '../types.js';

export interface IlpTestRuntime {
  server: ScriptedOpenAIServer;
  runtime: Runtime;
  home: string;
  store: MemorySecretStore;
  /** HOME/control.json: the ask credential and the control server's address. */
  control(): { token: string; url: string };
  /** The ledger's newest entries of one event. */
  entries(event: string): { event: string; data: unknown }[];
  stop(): Promise<void>;
}

/**
 * The real runtime on a fresh home in `dir`, headless on a loopback port, with the planner and
 * executor roles on a scripted OpenAI-compatible server (sealed as the owner saves them): what the
 * ILP runtime tests drive over HTTP, the socket and the control plane.
 */
export async function startIlpRuntime(dir: string): Promise<IlpTestRuntime> {
  const server = await startScriptedOpenAIServer();
  const home = join(dir, 'home');
  const store = new MemorySecretStore();
  const runtime = await buildRuntime({ home, mode: 'headless', port: 0, cockpitDir: null, auditPollMs: 20 }, { secretStore: store, logger: silentLogger });
  await runtime.start();
  const role = { provider: 'openai-compatible', model: 'scripted-model', baseUrl: server.baseUrl, price: { inputPerMillion: 1, outputPerMillion: 1 } };
  const saved = saveModelsAsOwner(home, store, { planner: role, executor: role });
  if (!saved.ok) throw new Error(`models.json: ${saved.problems.join('; ')}`);
  return {
    server,
    runtime,
    home,
    store,
    control: () => JSON.parse(readFileSync(homePaths(home).controlFile, 'utf8')) as { token: string; url: string },
    entries: (event) => runtime.audit.tail(1000).filter((e) => e.event === event),
    async stop() {
      await runtime.stop('test over');
      await server.http.close();
    },
  };
}
