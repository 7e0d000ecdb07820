import { readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CLIENTS, configLocation, type LocationContext } from '../clients/locations.js';
import { SILAS_AGENT_ID } from '../../alignment/default-cards.js';
import { withProxyClient } from '../clients/entries.js';
import { loadConfig } from '../clients/operations.js';

/**
 * The MCP servers the person has connected (docs/silas/stream.md "MCP servers"): the stdio entries
 * of the known agent clients' configurations that already run through `silas proxy`. Silas starts
 * exactly the command line those clients start, so its calls are governed by the same policy, DLP,
 * sandbox and approvals as any other agent's. A server named twice (two clients) is used once, the
 * first.
 */
export interface ConnectedServer {
  name: string;
  /** The client whose configuration wraps the server (where it came from). */
  client: string;
  command: string;
  /** The entry's arguments, with the proxy told that Silas is its caller (`--client silas`). */
  args: string[];
}

/**
 * The policies of this installation (docs/policy-editor.md "Saving, history, outside edits"): every
 * `--policy` of a wrapped client entry, and the YAML files in HOME/policies (where `silas clients
 * wrap` puts per-server policies). The cockpit may write these and no other file.
 */
export function installationPolicies(ctx: LocationContext, silasHome: string): string[] {
  const paths = new Set<string>();
  for (const client of CLIENTS) {
    try {
      for (const entry of loadConfig(client, configLocation(client.id, ctx)).parsed.servers) {
        const policy = entry.wrapped?.policy;
        if (policy !== undefined && isAbsolute(policy)) paths.add(policy);
      }
    } catch {
      // A missing or broken configuration names no policy.
    }
  }
  const dir = join(silasHome, 'policies');
  try {
    for (const name of readdirSync(dir)) if (/\.ya?ml$/i.test(name)) paths.add(join(dir, name));
  } catch {
    // No policies directory yet.
  }
  return [...paths];
}

/**
 * The policy `silas proxy --name SERVER [--client CLIENT]` runs under: from that client's wrapped
 * entry of that name, or (no client said) the first client's; null when none names it.
 */
export function wrappedPolicyOf(ctx: LocationContext, server: string, clientId: string | null = null): string | null {
  for (const client of CLIENTS) {
    if (clientId !== null && client.id !== clientId) continue;
    try {
      for (const entry of loadConfig(client, configLocation(client.id, ctx)).parsed.servers) {
        const policy = entry.wrapped?.policy;
        if (entry.name === server && policy !== undefined && isAbsolute(policy)) return policy;
      }
    } catch {
      // A missing or broken configuration names no policy.
    }
  }
  return null;
}

export function connectedServers(ctx: LocationContext): ConnectedServer[] {
  const seen = new Set<string>();
  const servers: ConnectedServer[] = [];
  for (const client of CLIENTS) {
    let parsed;
    try {
      parsed = loadConfig(client, configLocation(client.id, ctx)).parsed;
    } catch {
      // A missing or broken configuration offers no servers; the Servers page says why.
      continue;
    }
    for (const entry of parsed.servers) {
      if (entry.wrapped === undefined || entry.command === undefined || seen.has(entry.name)) continue;
      // The proxy records its caller with every decision: Silas's calls are Silas's, never the
      // wrapped client's, and are judged on their own Alignment Card (docs/alignment.md).
      const args = withProxyClient(entry.command, entry.args ?? [], SILAS_AGENT_ID);
      if (args === undefined) continue;
      seen.add(entry.name);
      servers.push({ name: entry.name, client: client.id, command: entry.command, args });
    }
  }
  return servers;
}
