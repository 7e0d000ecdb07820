/*
 * The strings of a tool call's arguments, each with the name of the field holding it, for the
 * chain detector's classification (call-classes.ts). A bounded, iterative walk: at most
 * MAX_NODES values visited, MAX_DEPTH levels, MAX_STRINGS strings kept, each cut to VALUE_MAX
 * characters and all of them to TOTAL_MAX, so a hostile argument (deep, wide, huge or shared)
 * costs a fixed amount. What lies beyond the caps is not classified; the DLP and the injection
 * scan, which judge content, have their own caps and "too large" findings.
 *
 * Objects holding a host and a port (`{host: "example.com", port: 4444}`) are reported as one
 * `host:port` string under the key `host`, because that pair is an address to send to.
 */

const MAX_NODES = 1_000;
const MAX_DEPTH = 12;
const MAX_STRINGS = 256;
const VALUE_MAX = 16_384;
const TOTAL_MAX = 65_536;
const PATH_MAX = 200;
const HOST_KEYS = ['host', 'hostname', 'server', 'address', 'remote', 'remote_host', 'target_host'];

export interface ArgString {
  /** The name of the field holding the string, lower case; for items of a list, the list's name; '' at the top. */
  key: string;
  /** JSON path of the string in the arguments (`command`, `files[0].path`), for the finding. */
  path: string;
  value: string;
}

interface Frame {
  value: unknown;
  key: string;
  path: string;
  depth: number;
}

export function argumentStrings(args: unknown): ArgString[] {
  const out: ArgString[] = [];
  const stack: Frame[] = [{ value: args, key: '', path: '', depth: 0 }];
  let nodes = 0;
  let total = 0;
  while (stack.length > 0 && nodes < MAX_NODES && out.length < MAX_STRINGS && total < TOTAL_MAX) {
    const frame = stack.pop()!;
    nodes++;
    const { value } = frame;
    if (typeof value === 'string') {
      const kept = value.slice(0, Math.min(VALUE_MAX, TOTAL_MAX - total));
      total += kept.length;
      out.push({ key: frame.key, path: frame.path, value: kept });
      continue;
    }
    if (typeof value !== 'object' || value === null || frame.depth >= MAX_DEPTH) continue;
    const children: Frame[] = [];
    if (Array.isArray(value)) {
      const n = Math.min(value.length, MAX_NODES - nodes);
      for (let i = 0; i < n; i++) children.push({ value: value[i], key: frame.key, path: cap(`${frame.path}[${i}]`), depth: frame.depth + 1 });
    } else {
      const record = value as Record<string, unknown>;
      hostAndPort(record, frame, out);
      let seen = 0;
      for (const name in record) {
        if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
        if (++seen > MAX_NODES - nodes) break;
        const path = cap(frame.path === '' ? name : `${frame.path}.${name}`);
        children.push({ value: record[name], key: name.slice(0, 64).toLowerCase(), path, depth: frame.depth + 1 });
      }
    }
    // Pushed in reverse so the walk visits fields in their written order (the key argument is the first that fits).
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out;
}

function hostAndPort(record: Record<string, unknown>, frame: Frame, out: ArgString[]): void {
  const port = record['port'];
  if (typeof port !== 'number' && typeof port !== 'string') return;
  for (const key of HOST_KEYS) {
    const host = record[key];
    if (typeof host === 'string' && host.length > 0 && host.length <= 253) {
      out.push({ key: 'host', path: cap(frame.path === '' ? key : `${frame.path}.${key}`), value: `${host}:${String(port).slice(0, 5)}` });
      return;
    }
  }
}

function cap(path: string): string {
  return path.length > PATH_MAX ? path.slice(0, PATH_MAX) : path;
}
