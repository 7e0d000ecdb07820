import { isIPv4, isIPv6 } from 'node:net';

/*
 * Which resolved addresses a sandboxed server may not reach through a *name* (docs/mcp-sandbox.md
 * "Network: the egress proxy"). A listed name is only as trustworthy as the DNS answer behind it: a
 * hostile server that can influence that answer (its own domain, a rebinding service) would
 * otherwise use the proxy to reach the control center's loopback WebSocket, the LAN or a cloud
 * metadata endpoint. Addresses that carry an IPv4 address inside an IPv6 one (mapped, compatible,
 * NAT64, 6to4) are judged by what they embed, since the host's stack may deliver them to that IPv4
 * address.
 */

interface Range4 {
  base: number;
  bits: number;
  name: string;
}

const V4_RANGES: Range4[] = [
  { base: v4('0.0.0.0'), bits: 8, name: 'unspecified' },
  { base: v4('10.0.0.0'), bits: 8, name: 'private' },
  { base: v4('100.64.0.0'), bits: 10, name: 'shared address space' },
  { base: v4('127.0.0.0'), bits: 8, name: 'loopback' },
  { base: v4('169.254.0.0'), bits: 16, name: 'link-local' },
  { base: v4('172.16.0.0'), bits: 12, name: 'private' },
  { base: v4('192.168.0.0'), bits: 16, name: 'private' },
  { base: v4('224.0.0.0'), bits: 4, name: 'multicast' },
  { base: v4('240.0.0.0'), bits: 4, name: 'reserved' },
];

function v4(text: string): number {
  return text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function v4Range(value: number): string | null {
  for (const range of V4_RANGES) {
    const size = 2 ** (32 - range.bits);
    if (Math.floor(value / size) === Math.floor(range.base / size)) return range.name;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (zone id ignored), or null when it is not one. */
function ipv6Bytes(address: string): Uint8Array | null {
  const zone = address.indexOf('%');
  let text = zone >= 0 ? address.slice(0, zone) : address;
  if (!isIPv6(text)) return null;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return null;
    const value = v4(tail);
    text = `${text.slice(0, lastColon + 1)}${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === null ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...restGroups];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

function startsWith(bytes: Uint8Array, prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const byte = bit / 8;
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[byte]! & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

function embedded(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! * 256 + bytes[at + 1]!) * 256 + bytes[at + 2]!) * 256 + bytes[at + 3]!;
}

function v6Range(bytes: Uint8Array): string | null {
  const zeros = (count: number) => bytes.subarray(0, count).every((b) => b === 0);
  if (zeros(16)) return 'unspecified';
  if (zeros(15) && bytes[15] === 1) return 'loopback';
  const carried = (kind: string, at: number) => {
    const inner = v4Range(embedded(bytes, at));
    return inner === null ? null : `${kind} ${inner}`;
  };
  if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return carried('IPv4-mapped', 12);
  if (zeros(12)) return carried('IPv4-compatible', 12);
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b], 96)) return carried('NAT64', 12);
  if (startsWith(bytes, [0x20, 0x02], 16)) return carried('6to4', 2);
  if (startsWith(bytes, [0xfc], 7)) return 'private';
  if (startsWith(bytes, [0xfe, 0x80], 10)) return 'link-local';
  if (startsWith(bytes, [0xfe, 0xc0], 10)) return 'site-local';
  if (startsWith(bytes, [0xff], 8)) return 'multicast';
  return null;
}

/**
 * Why `address` may not be reached through a listed name ("loopback", "IPv4-mapped private", …),
 * or null for a public address. Anything that is not an IP address at all is refused too.
 */
export function nonPublicRange(address: string): string | null {
  if (isIPv4(address)) return v4Range(v4(address));
  const bytes = ipv6Bytes(address);
  return bytes === null ? 'not an IP address' : v6Range(bytes);
}
