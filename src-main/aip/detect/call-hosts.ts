/*
 * Where a value of a tool call points on the network, for the chain detector's network_send
 * class (call-classes.ts, call-command.ts). A URL with a network scheme, or a `host:port`, names
 * a host; a loopback host is not a send (the agent's own machine), every other host is. Plain
 * string parsing, linear in the value, which is capped at HOST_VALUE_MAX.
 */

const HOST_VALUE_MAX = 2048;
const NETWORK_SCHEMES = ['http://', 'https://', 'ftp://', 'ftps://', 'ws://', 'wss://', 'sftp://', 'scp://', 'rsync://', 'smtp://', 'gopher://', 'dict://', 'tftp://', 'ldap://'];

/** The host of a URL with a network scheme at the start of `value`, lower case; null otherwise. */
export function urlHost(value: string): string | null {
  if (value.length > HOST_VALUE_MAX) value = value.slice(0, HOST_VALUE_MAX);
  const lower = value.trim().toLowerCase();
  const scheme = NETWORK_SCHEMES.find((s) => lower.startsWith(s));
  if (scheme === undefined) return null;
  let authority = lower.slice(scheme.length);
  for (const stop of ['/', '?', '#', ' ', '"', "'"]) {
    const at = authority.indexOf(stop);
    if (at >= 0) authority = authority.slice(0, at);
  }
  const host = hostOfAuthority(authority);
  return host === '' ? null : host;
}

/**
 * The host of a bare `host:port`, `user@host` or `host` word as network tools take them (`nc`,
 * `ssh`, `curl example.com`): it must look like a host name with a dot, an IPv4 or IPv6 address,
 * or `localhost`. Null for anything else (paths, options, words).
 */
export function bareHost(value: string, requirePort: boolean): string | null {
  if (value.length === 0 || value.length > 300) return null;
  let word = value.trim().toLowerCase();
  const slash = word.indexOf('/');
  if (slash === 0 || word.startsWith('-') || word.startsWith('.') || word.startsWith('~')) return null;
  if (slash > 0) word = word.slice(0, slash);
  if (requirePort && !hasPort(word)) return null;
  const host = hostOfAuthority(word);
  return looksLikeHost(host) ? host : null;
}

/** The agent's own machine: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`, `0.0.0.0`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return h === 'localhost' || h.endsWith('.localhost') || h.startsWith('127.') || h === '::1' || h === '0.0.0.0' || h === '0:0:0:0:0:0:0:1';
}

function hostOfAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  let host = at >= 0 ? authority.slice(at + 1) : authority;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    return close > 0 ? host.slice(0, close + 1) : host;
  }
  const colon = host.indexOf(':');
  if (colon >= 0) host = host.slice(0, colon);
  return host;
}

function hasPort(word: string): boolean {
  const colon = word.lastIndexOf(':');
  if (colon <= 0 || colon === word.length - 1) return false;
  const port = word.slice(colon + 1);
  return port.length <= 5 && [...port].every((c) => c >= '0' && c <= '9');
}

function looksLikeHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (host.startsWith('[') && host.endsWith(']')) return host.length > 2;
  if (host.length < 3 || host.length > 253 || !host.includes('.') || host.startsWith('.') || host.endsWith('.')) return false;
  for (const c of host) {
    const ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '-' || c === '.' || c === '_';
    if (!ok) return false;
  }
  // A file name (`notes.txt`, `payload.sh`) is not a host: the last label of a host is letters
  // of a real top-level domain or an IPv4 octet, and file extensions rarely pass as either here.
  const labels = host.split('.');
  const numeric = (label: string): boolean => label.length > 0 && label.length <= 3 && [...label].every((c) => c >= '0' && c <= '9');
  if (labels.length === 4 && labels.every(numeric)) return true;
  const tld = labels[labels.length - 1]!;
  return tld.length >= 2 && !FILE_EXTENSIONS.has(tld) && [...tld].every((c) => c >= 'a' && c <= 'z');
}

/** Extensions seen on file names in commands; a word ending in one is read as a file, not a host. */
const FILE_EXTENSIONS = new Set([
  'txt', 'md', 'sh', 'py', 'js', 'ts', 'json', 'yaml', 'yml', 'toml', 'ini', 'cfg', 'conf', 'log', 'csv', 'xml', 'html', 'htm', 'css',
  'tar', 'gz', 'tgz', 'zip', 'bz2', 'xz', 'rb', 'pl', 'php', 'go', 'rs', 'java', 'c', 'h', 'cpp', 'env', 'pem', 'key', 'crt', 'pub',
  'lock', 'bak', 'tmp', 'out', 'bin', 'exe', 'dll', 'so', 'img', 'iso', 'png', 'jpg', 'jpeg', 'gif', 'svg', 'pdf', 'db', 'sql', 'mjs', 'cjs',
]);
