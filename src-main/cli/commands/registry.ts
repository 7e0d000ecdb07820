import type { Command } from '../io.js';

/**
 * The command table `silas --help` prints, with each command's module loaded only when that
 * command runs: every MCP client spawns one `silas proxy` per server at launch, so a start must
 * not pay for the other commands' imports (docs/architecture.md §6). The summary lives only here, so
 * help needs no module; registry.test.ts checks each entry loads the command of its name.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'init', summary: 'create the data home, database and owner key', load: async () => (await import('./init.js')).initCommand },
  { name: 'start', summary: 'start the runtime (desktop app, or headless cockpit server)', load: async () => (await import('./start.js')).startCommand },
  { name: 'open', summary: 'print (and open) a fresh link to the running cockpit; needs the OS keyring', load: async () => (await import('./open.js')).openCommand },
  { name: 'chat', summary: 'talk to Silas in this terminal, through the running control center', load: async () => (await import('./chat.js')).chatCommand },
  { name: 'policy', summary: 'validate, hash and sign AIP policies; compute tool schema hashes', load: async () => (await import('./policy.js')).policyCommand },
  { name: 'proxy', summary: 'Run an MCP server behind an AIP policy (stdio relay with audit and approvals)', load: async () => (await import('./proxy.js')).proxyCommand },
  { name: 'aip', summary: 'AIP tools: run conformance vectors', load: async () => (await import('./aip.js')).aipCommand },
  { name: 'ilp', summary: 'ILP/1.0: send requests to the runtime\'s agents, list them, read and check messages', load: async () => (await import('./ilp.js')).ilpCommand },
  { name: 'aap', summary: 'AAP tools: validate cards and traces, verify, coherence, drift, conformance', load: async () => (await import('./aap.js')).aapCommand },
  { name: 'audit', summary: 'verify, read and export the audit chain', load: async () => (await import('./audit.js')).auditCommand },
  { name: 'clients', summary: 'list MCP client configurations; wrap and unwrap their servers with silas proxy', load: async () => (await import('./clients.js')).clientsCommand },
  { name: 'secrets', summary: 'store, list and delete the secrets MCP servers get from the OS keyring', load: async () => (await import('./secrets.js')).secretsCommand },
  { name: 'models', summary: 'choose the model each agent role uses, show it, and test it with one call', load: async () => (await import('./models.js')).modelsCommand },
  { name: 'memory', summary: 'export and import Silas memory as a portable bundle', load: async () => (await import('./memory.js')).memoryCommand },
  { name: 'doctor', summary: 'check this machine and data home, and say how to fix problems', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'plan', summary: 'check a Silas plan: its plan hash and approval card', load: async () => (await import('./plan.js')).planCommand },
  { name: 'verify', summary: "run a plan's verify checks in the sandbox and report", load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'run', summary: 'approve and run a Silas task plan in the sandbox, verified externally', load: async () => (await import('./run.js')).runCommand },
];
