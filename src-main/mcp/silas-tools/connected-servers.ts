import { CLIENTS, configLocation, type LocationContext } from '../clients/locations.js';
import { loadConfig } from '../clients/operations.js';

/**
 * The MCP servers the person has connected (issue 13 item 5): the stdio entries of the known
 * agent clients' configurations that already run through `silas proxy`. Silas starts exactly the
 * command line those clients start, so its calls are governed by the same policy, DLP, sandbox
 * and approvals as any other agent's. A server named twice (two clients) is used once, the first.
 */
export interface ConnectedServer {
  name: string;
  client: string;
  command: string;
  args: string[];
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
      seen.add(entry.name);
      servers.push({ name: entry.name, client: client.id, command: entry.command, args: [...(entry.args ?? [])] });
    }
  }
  return servers;
}
