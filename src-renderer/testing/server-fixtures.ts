import type { GovernedServer } from '../../src-shared/schemas/servers.js';
import { auditEntry } from './audit-fixtures.js';

/** `sha256:` + 64 hex characters built from one repeated hex digit. */
export const hash = (digit: string) => `sha256:${digit.repeat(64)}`;

type Pin = GovernedServer['pins'][number];

/** A pinned tool; a pending change gets the id of its Review card unless the test names one. */
export function pin(tool: string, overrides: Partial<Pin> = {}): Pin {
  return {
    decisionId: overrides.pendingHash ? `tool_change-${tool}` : null,
    tool,
    approvedHash: hash('a'),
    sealed: true,
    firstSeenAt: '2026-01-01T12:00:00.000Z',
    approvedAt: '2026-01-01T12:00:00.000Z',
    pendingHash: null,
    pendingSince: null,
    ...overrides,
  };
}

/** An `aip.decision` entry as the proxy records it. */
export function decision(index: number, tool: string, verdict: string, extra: Record<string, string | boolean> = {}) {
  return auditEntry(index, { event: 'aip.decision', data: { server: 'files', direction: 'upstream', method: 'tools/call', tool, decision: verdict, violation: false, ...extra } });
}

export { sandboxSummary } from '../../src-shared/schemas/testing/server-sandbox.js';

/** An `mcp.sandbox_denied` entry as the proxy records it. */
export function denial(index: number, host: string, port: number, reason = 'host not in network.hosts') {
  return auditEntry(index, { event: 'mcp.sandbox_denied', data: { server: 'files', session_id: 's1', kind: 'connect', host, port, reason } });
}

export function governedServer(name: string, overrides: Partial<GovernedServer> = {}): GovernedServer {
  return {
    name,
    lastStartedAt: '2026-01-01T12:00:00.000Z',
    policyName: 'workstation',
    policyHash: `sha256:${'c0ffee'.repeat(10)}abcd`,
    policyError: null,
    pins: [pin('read_file')],
    recentDecisions: [],
    // Servers started before sandboxing was recorded; tests of the sandbox give one.
    sandbox: null,
    sandboxDenials: [],
    ...overrides,
  };
}
