import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

/*
 * The names a sandboxed server asks for and the patterns a policy lists
 * (`x-silas-sandbox.network.hosts`) go through the same normalisation, so a match means the same
 * host to the proxy as to the resolver it then uses. The server is hostile: anything a URL parser
 * would reinterpret (percent escapes, userinfo, paths, numeric shorthands such as `0x7f.1`) is
 * refused rather than interpreted, so nothing reaches the resolver that the match did not see.
 */

class EgressPatternError extends Error {}

/** A normalised host: a lowercase ASCII name, a dotted IPv4 literal or a canonical `[IPv6]`. */
export interface Host {
  name: string;
  ip: boolean;
}

export interface HostPattern {
  /** As written in the policy, for reasons and audit entries. */
  source: string;
  host: Host;
  /** `*.example.com`: any name below `host.name`, never `host.name` itself. */
  wildcard: boolean;
  /**
   * `*` (or `*:port`): any name (a fetch server's web). Never an IP literal, and a name that
   * resolves to a loopback or private address is still refused after resolution.
   */
  anyName: boolean;
  /** Null: the web's two ports, 443 and 80. */
  port: number | null;
}

const DEFAULT_PORTS = [443, 80];
// Anything a WHATWG host parser would decode, split or strip; spaces, control characters and
// invisible format characters (soft hyphen, zero-width joiners, bidi overrides) used to spoof.
const REINTERPRETED = /[\s\p{Cc}\p{Cf}%@/\\?#[\]:*"<>^`{|}]/u;
const LABEL = /^[a-z0-9_-]{1,63}$/;
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/;

/** The normalised form of a bare host (no port), or null when it is not a plain host. */
export function normaliseHost(raw: string): Host | null {
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const inner = raw.slice(1, -1);
    if (!isIPv6(inner) || inner.includes('%')) return null;
    return { name: new URL(`http://[${inner}]/`).hostname, ip: true };
  }
  const trimmed = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (trimmed === '' || REINTERPRETED.test(trimmed)) return null;
  if (isIPv4(trimmed)) return { name: trimmed, ip: true };
  const ascii = domainToASCII(trimmed);
  if (ascii === '' || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (!labels.every((label) => LABEL.test(label))) return null;
  // A numeric last label is an IPv4 shorthand to resolvers (`2130706433`, `127.1`): no real name has one.
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) return null;
  return { name: ascii, ip: false };
}

function parsePort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** Splits `host:port` (or `[v6]:port`); the port is undefined when absent. */
function splitAuthority(text: string): { host: string; port: number | null | undefined } | null {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return null;
    const rest = text.slice(close + 1);
    if (rest === '') return { host: text.slice(0, close + 1), port: undefined };
    return rest.startsWith(':') ? { host: text.slice(0, close + 1), port: parsePort(rest.slice(1)) } : null;
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) return { host: text, port: undefined };
  return { host: text.slice(0, colon), port: parsePort(text.slice(colon + 1)) };
}

/** The target of `CONNECT host:port`: both parts are required. */
export function parseConnectTarget(target: string): { host: Host; port: number } | null {
  const split = splitAuthority(target);
  if (split === null || split.port === undefined || split.port === null) return null;
  const host = normaliseHost(split.host);
  return host === null ? null : { host, port: split.port };
}

/** One policy entry: `example.com`, `*.example.com`, `10.0.0.5:8080`, `[2001:db8::1]:443`. */
export function parseHostPattern(source: string): HostPattern {
  const fail = (why: string): never => {
    throw new EgressPatternError(`network host pattern ${JSON.stringify(source)}: ${why}`);
  };
  const trimmed = source.trim().toLowerCase();
  const any = /^\*(?::(\d{1,5}))?$/.exec(trimmed);
  if (any) {
    const port = any[1] === undefined ? null : Number(any[1]);
    if (port !== null && (port < 1 || port > 65_535)) return fail('expected a port from 1 to 65535');
    return { source, host: { name: '', ip: false }, wildcard: false, anyName: true, port };
  }
  const split = splitAuthority(trimmed);
  if (split === null || split.port === null) return fail('expected host, *.host, *, or either with :port (1-65535)');
  const wildcard = split.host.startsWith('*.');
  const host = normaliseHost(wildcard ? split.host.slice(2) : split.host);
  if (host === null) return fail('not a valid host name or IP literal');
  if (wildcard && host.ip) return fail('a wildcard applies to names, not IP addresses');
  return { source, host, wildcard, anyName: false, port: split.port ?? null };
}

export function parseHostPatterns(sources: readonly string[]): HostPattern[] {
  return sources.map(parseHostPattern);
}

function patternMatches(pattern: HostPattern, host: Host, port: number): boolean {
  const portAllowed = pattern.port === null ? DEFAULT_PORTS.includes(port) : pattern.port === port;
  if (!portAllowed || pattern.host.ip !== host.ip) return false;
  if (pattern.anyName) return !host.ip;
  if (!pattern.wildcard) return pattern.host.name === host.name;
  return host.name.endsWith(`.${pattern.host.name}`);
}

/** The first pattern that allows `host:port`, or null. */
export function findPattern(patterns: readonly HostPattern[], host: Host, port: number): HostPattern | null {
  return patterns.find((pattern) => patternMatches(pattern, host, port)) ?? null;
}
