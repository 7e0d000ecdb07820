/** How long the list of governed servers is reused: reading every client's configuration per ask would let a flood of asks cost file reads. */
const GOVERNED_CACHE_MS = 5_000;

/**
 * "Is this one of the person's governed servers?" — a server wrapped behind `silas proxy` in an
 * agent client's configuration (mcp/silas-tools/connected-servers.ts). Read at most once per
 * `ttlMs`; a list that cannot be read governs nothing.
 */
export function governedServers(list: () => readonly { name: string }[], ttlMs = GOVERNED_CACHE_MS, clock: () => number = Date.now): (server: string) => boolean {
  let names: ReadonlySet<string> = new Set();
  let readAt = -Infinity;
  return (server) => {
    const now = clock();
    if (now - readAt >= ttlMs) {
      readAt = now;
      try {
        names = new Set(list().map((s) => s.name));
      } catch {
        names = new Set();
      }
    }
    return names.has(server);
  };
}
