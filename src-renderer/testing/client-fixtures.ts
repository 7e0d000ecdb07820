import type { AgentClientView, ClientServerView, ClientWrapPlanView } from '../../src-shared/schemas/clients.js';

export const CLAUDE_FILE = '/home/ada/.config/Claude/claude_desktop_config.json';
export const POLICY = '/home/ada/policies/workstation.yaml';

export function clientServer(name: string, overrides: Partial<ClientServerView> = {}): ClientServerView {
  return { name, transport: 'stdio', wrapped: false, policy: null, reason: null, ...overrides };
}

/** Claude Desktop with two stdio servers and a remote one, nothing wrapped. */
export function agentClient(overrides: Partial<AgentClientView> = {}): AgentClientView {
  return {
    client: 'claude-desktop',
    label: 'Claude Desktop',
    file: CLAUDE_FILE,
    found: true,
    error: null,
    servers: [
      clientServer('files'),
      clientServer('github'),
      clientServer('linear', { transport: 'remote', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }),
    ],
    lastWrap: null,
    ...overrides,
  };
}

export function missingClient(client: string, label: string, file: string): AgentClientView {
  return { client, label, file, found: false, error: null, servers: [], lastWrap: null };
}

export function wrapPlan(overrides: Partial<ClientWrapPlanView> = {}): ClientWrapPlanView {
  return {
    client: 'claude-desktop',
    file: CLAUDE_FILE,
    policy: POLICY,
    diff: `--- ${CLAUDE_FILE}\n+++ ${CLAUDE_FILE} (wrapped)\n@@ -3,2 +3,2 @@\n-      "command": "npx",\n+      "command": "/usr/bin/node",\n`,
    diffHash: `sha256:${'d'.repeat(64)}`,
    wrap: [
      { name: 'files', policy: POLICY },
      { name: 'github', policy: POLICY },
    ],
    skipped: [{ name: 'linear', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }],
    sandboxProfiles: [],
    ...overrides,
  };
}
