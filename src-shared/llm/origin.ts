/*
 * The origin of a URL as a secret's binding records it: scheme://host:port, always with the port,
 * so "https://api.example.com" and "https://api.example.com:443/v1" are one origin and
 * "http://127.0.0.1:8080" and "http://127.0.0.1:8081" are two (docs/silas/models.md, "Where a key
 * may go"). Paths do not count: a key is for a server, and a server decides its own paths.
 */

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** The origin of an http(s) URL, or null when `url` is not one. */
export function originOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const port = DEFAULT_PORTS[parsed.protocol];
  if (port === undefined || parsed.hostname === '') return null;
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port === '' ? port : parsed.port}`;
}
