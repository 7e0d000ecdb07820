import { isIP } from 'node:net';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1';
  return false;
}

/**
 * Which Host and Origin headers the control surface accepts (DESIGN invariant 6). Checking
 * Host defeats DNS rebinding: a page on evil.example that rebinds to 127.0.0.1 still sends
 * `Host: evil.example`. Checking Origin stops other local pages from driving the socket.
 */
export class OriginPolicy {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(port: number, options: { extraHosts?: readonly string[]; tls?: boolean } = {}) {
    const scheme = options.tls ? 'https' : 'http';
    // A bare IPv6 address appears bracketed in Host and Origin headers.
    const extra = (options.extraHosts ?? []).map((h) => (isIP(h) === 6 ? `[${h}]` : h));
    const names = [...LOOPBACK_NAMES, ...extra];
    this.hosts = new Set(names.map((name) => `${name}:${port}`.toLowerCase()));
    this.origins = new Set(names.map((name) => `${scheme}://${name}:${port}`.toLowerCase()));
  }

  hostAllowed(host: string | undefined): boolean {
    return typeof host === 'string' && this.hosts.has(host.toLowerCase());
  }

  /**
   * Browsers always send Origin on a WebSocket upgrade, and the cockpit is the only WebSocket
   * client: an absent Origin is a non-browser process (a proxy, an MCP server that read a
   * credential), which belongs on the local socket and is refused here.
   */
  originAllowed(origin: string | undefined): boolean {
    return typeof origin === 'string' && this.origins.has(origin.toLowerCase());
  }
}
