import { getProp, type JsonObjectNode, type JsonProp } from './jsonc.js';
import type { ServerEntry } from './entries.js';
import { insertedProp, lineIndent, removePropEdit, type Edit } from './text-edits.js';

/*
 * What `silas clients wrap` adds to a wrapped entry's `env`, and how unwrap takes exactly that
 * back out. MCP clients start their servers with an environment of their choosing (the MCP SDK
 * passes only HOME, LOGNAME, PATH, SHELL, TERM and USER); the proxy needs the D-Bus session its
 * OS keyring answers on, so the address of the session that wrapped the entry is written into the
 * entry where the client's format has `env` (docs/mcp-proxy.md "Starting under any client").
 * The person's own variables are never changed: a variable they already set is left as it is.
 */

/** What wrap added to one entry's env: the variables, and whether the `env` object itself was new. */
export interface AddedEnv {
  vars: Record<string, string>;
  created: boolean;
}

/**
 * The variables a wrapped entry carries for its proxy: on Linux, this session's D-Bus address when
 * it is a socket address (`unix:path=` or `unix:abstract=`). A path that is gone by the time the
 * proxy starts is fine: the proxy then looks for the bus as libdbus does (keys/session-bus.ts).
 */
export function proxyEnvironment(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Record<string, string> {
  if (platform !== 'linux') return {};
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (!address || !/^unix:(path|abstract)=/.test(address) || address.length > 1000) return {};
  return { DBUS_SESSION_BUS_ADDRESS: address };
}

function envObject(entry: ServerEntry): { prop: JsonProp | undefined; object: JsonObjectNode | null } {
  const prop = getProp(entry.node, 'env');
  return { prop, object: prop?.value.kind === 'object' ? prop.value : null };
}

/** The variables to add to `entry`: those it does not set itself; none when its `env` is not an object. */
export function envAdditions(entry: ServerEntry, wanted: Readonly<Record<string, string>>): AddedEnv | null {
  const { prop, object } = envObject(entry);
  if (prop && !object) return null;
  const vars = Object.fromEntries(Object.entries(wanted).filter(([key]) => !object?.props.some((p) => p.key === key)));
  return Object.keys(vars).length > 0 ? { vars, created: prop === undefined } : null;
}

/** Text edits adding `added` to the entry: into its `env`, or as a new `env` after its last property. */
export function addEnvEdits(text: string, nl: string, entry: ServerEntry, added: AddedEnv): Edit[] {
  const pairs = Object.entries(added.vars);
  const { object } = envObject(entry);
  if (object && object.props.length > 0) {
    const last = object.props[object.props.length - 1]!;
    return [{ start: last.value.end, end: last.value.end, text: pairs.map(([key, value]) => insertedProp(text, nl, object, last, key, JSON.stringify(value))).join('') }];
  }
  const multiline = text.slice(entry.node.start, entry.node.end).includes('\n');
  const anchor = entry.node.props[entry.node.props.length - 1]!;
  const outer = lineIndent(text, anchor.keyStart);
  const unit = outer.slice(lineIndent(text, entry.node.start).length) || '  ';
  const body = multiline
    ? `{${nl}${pairs.map(([key, value]) => `${outer}${unit}${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(`,${nl}`)}${nl}${outer}}`
    : `{ ${pairs.map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')} }`;
  if (object) return [{ start: object.start, end: object.end, text: body }];
  return [{ start: anchor.value.end, end: anchor.value.end, text: insertedProp(text, nl, entry.node, anchor, 'env', body) }];
}

/**
 * Text edits taking back what wrap added: each variable still holding the value wrap wrote (one
 * the person changed since is theirs now), and the `env` object when wrap created it and nothing
 * else is left in it.
 */
export function removeEnvEdits(entry: ServerEntry, added: AddedEnv): Edit[] {
  const { prop, object } = envObject(entry);
  if (!prop || !object) return [];
  const removed = object.props.filter((p) => Object.hasOwn(added.vars, p.key) && p.value.kind === 'string' && p.value.value === added.vars[p.key]);
  if (removed.length === 0) return [];
  if (removed.length === object.props.length) {
    return added.created ? [removePropEdit(entry.node, prop)] : [{ start: object.start, end: object.end, text: '{}' }];
  }
  // Runs of neighbouring properties go in one edit each, so no two edits overlap.
  const edits: Edit[] = [];
  const props = object.props;
  for (let i = 0; i < props.length; i++) {
    if (!removed.includes(props[i]!)) continue;
    let j = i;
    while (j + 1 < props.length && removed.includes(props[j + 1]!)) j++;
    if (i > 0) edits.push({ start: props[i - 1]!.value.end, end: props[j]!.value.end, text: '' });
    else edits.push({ start: props[0]!.keyStart, end: props[j + 1]!.keyStart, text: '' });
    i = j;
  }
  return edits;
}
