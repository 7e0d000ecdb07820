import { isDeepStrictEqual } from 'node:util';
import { parseClientConfig, type ParsedConfig, type ServerEntry } from './entries.js';
import { getProp, toValue, type JsonArrayNode } from './jsonc.js';
import { addEnvEdits, envAdditions, removeEnvEdits, type AddedEnv } from './entry-env.js';
import { applyEdits, insertedProp, lineIndent, newlineOf, removePropEdit, type Edit } from './text-edits.js';
import type { ClientSpec } from './locations.js';

/*
 * Text-level edits of a client configuration. Only the `command` and `args` values of the
 * entries being (un)wrapped are replaced; every other byte of the file stays as it was.
 */

export interface ProxyRuntime {
  /** Absolute path of the node executable. */
  node: string;
  /** Absolute path of bin/silas.js. */
  bin: string;
}

export interface WrapSpec {
  policy: string;
  home?: string;
  /** The client whose configuration this is: the proxy records it, so each server/client pair is its own agent. */
  client?: string;
  /** `--allow-unsigned` on the proxy: enforce policies the owner did not sign (development only, recorded by the proxy). */
  allowUnsigned?: boolean;
  /** Variables the proxy needs in the entry's `env` (entry-env.ts); only those the entry does not set are added. */
  env?: Readonly<Record<string, string>>;
}

/** The command line that runs `original` behind `silas proxy`. */
function proxyCommandLine(runtime: ProxyRuntime, server: string, spec: WrapSpec, original: { command: string; args: readonly string[] }): { command: string; args: string[] } {
  const args = [runtime.bin, 'proxy', '--name', server, '--policy', spec.policy];
  if (spec.home !== undefined) args.push('--home', spec.home);
  if (spec.client !== undefined) args.push('--client', spec.client);
  if (spec.allowUnsigned) args.push('--allow-unsigned');
  args.push('--', original.command, ...original.args);
  return { command: runtime.node, args };
}

/** Formats a string array like `like` was formatted: one item per line, or on one line. */
function formatArray(text: string, nl: string, items: readonly string[], like: JsonArrayNode | undefined): string {
  const encoded = items.map((item) => JSON.stringify(item));
  const original = like ? text.slice(like.start, like.end) : '';
  if (like && like.items.length > 0 && original.includes('\n')) {
    const closeIndent = lineIndent(text, like.end - 1);
    const itemIndent = lineIndent(text, like.items[0]!.start);
    return `[${nl}${itemIndent}${encoded.join(`,${nl}${itemIndent}`)}${nl}${closeIndent}]`;
  }
  let separator = ', ';
  if (like && like.items.length > 1) separator = text.slice(like.items[0]!.end, like.items[1]!.start).replace(/\s+/g, (ws) => (ws.includes('\n') ? ' ' : ws));
  if (!/^,\s*$/.test(separator)) separator = ', ';
  const inner = like && like.items.length > 0 ? text.slice(like.start + 1, like.items[0]!.start) : '';
  const pad = /^[ \t]+$/.test(inner) ? inner : '';
  return `[${pad}${encoded.join(separator)}${pad}]`;
}

/** Replace (or insert) an entry's command and args. */
function setCommandEdits(text: string, nl: string, entry: ServerEntry, command: string, args: readonly string[]): Edit[] {
  const commandProp = getProp(entry.node, 'command')!;
  const argsProp = getProp(entry.node, 'args');
  const edits: Edit[] = [{ start: commandProp.value.start, end: commandProp.value.end, text: JSON.stringify(command) }];
  if (argsProp) {
    const like = argsProp.value.kind === 'array' ? argsProp.value : undefined;
    edits.push({ start: argsProp.value.start, end: argsProp.value.end, text: formatArray(text, nl, args, like) });
  } else {
    edits.push({ start: commandProp.value.end, end: commandProp.value.end, text: insertedProp(text, nl, entry.node, commandProp, 'args', formatArray(text, nl, args, undefined)) });
  }
  return edits;
}

/** The text with each named entry's command and args replaced by the proxy command line. */
export function wrapEntries(parsed: ParsedConfig, runtime: ProxyRuntime, targets: ReadonlyMap<string, WrapSpec>): string {
  const edits: Edit[] = [];
  const nl = newlineOf(parsed.text);
  for (const entry of parsed.servers) {
    const spec = targets.get(entry.name);
    if (!spec) continue;
    if (entry.transport !== 'stdio' || entry.problem || entry.wrapped) throw new Error(`internal: entry "${entry.name}" cannot be wrapped`);
    const line = proxyCommandLine(runtime, entry.name, spec, { command: entry.command!, args: entry.args ?? [] });
    edits.push(...setCommandEdits(parsed.text, nl, entry, line.command, line.args));
    const added = spec.env ? envAdditions(entry, spec.env) : null;
    if (added) edits.push(...addEnvEdits(parsed.text, nl, entry, added));
  }
  return applyEdits(parsed.text, edits);
}

export interface EntryRestore {
  name: string;
  /** What wrap added to the entry's env (from the wrap record), taken back out. */
  addedEnv?: AddedEnv;
  /** The original entry as it sits in the backup, when the backup is available. */
  fromBackup?: { text: string; entry: ServerEntry };
}

/**
 * Restores wrapped entries' command and args: copied verbatim from the backup's entry when
 * available, otherwise rebuilt from the proxy command line (the part after `--`).
 */
export function unwrapEntries(parsed: ParsedConfig, restores: readonly EntryRestore[]): string {
  const edits: Edit[] = [];
  const nl = newlineOf(parsed.text);
  for (const restore of restores) {
    const entry = parsed.servers.find((e) => e.name === restore.name);
    if (!entry?.wrapped) throw new Error(`internal: entry "${restore.name}" is not wrapped`);
    const source = restore.fromBackup;
    if (source) {
      const oldCommand = getProp(source.entry.node, 'command')!;
      const oldArgs = getProp(source.entry.node, 'args');
      const commandProp = getProp(entry.node, 'command')!;
      const argsProp = getProp(entry.node, 'args');
      edits.push({ start: commandProp.value.start, end: commandProp.value.end, text: source.text.slice(oldCommand.value.start, oldCommand.value.end) });
      const oldArgsText = oldArgs ? source.text.slice(oldArgs.value.start, oldArgs.value.end) : undefined;
      if (argsProp && oldArgsText !== undefined) edits.push({ start: argsProp.value.start, end: argsProp.value.end, text: oldArgsText });
      else if (argsProp) edits.push(removePropEdit(entry.node, argsProp));
      else if (oldArgsText !== undefined) edits.push({ start: commandProp.value.end, end: commandProp.value.end, text: insertedProp(parsed.text, nl, entry.node, commandProp, 'args', oldArgsText) });
    } else {
      const original = entry.wrapped.original;
      if (!original) throw new Error(`internal: entry "${restore.name}" has no original command`);
      edits.push(...setCommandEdits(parsed.text, nl, entry, original.command, original.args));
    }
    if (restore.addedEnv) edits.push(...removeEnvEdits(entry, restore.addedEnv));
  }
  return applyEdits(parsed.text, edits);
}

/**
 * Checks an edited text: it parses, every entry outside `changed` is unchanged, and inside
 * `changed` only command, args and the `envKeys` variables of env differ. Returns the re-parsed config.
 */
export function checkEdit(before: ParsedConfig, afterText: string, client: ClientSpec, changed: ReadonlySet<string>, envKeys: ReadonlySet<string> = new Set()): ParsedConfig {
  const after = parseClientConfig(afterText, client);
  const strip = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const { command: _command, args: _args, env, ...rest } = value as Record<string, unknown>;
    if (env === undefined) return rest;
    if (env === null || typeof env !== 'object' || Array.isArray(env)) return { ...rest, env };
    const kept = Object.fromEntries(Object.entries(env).filter(([key]) => !envKeys.has(key)));
    return Object.keys(kept).length > 0 ? { ...rest, env: kept } : rest;
  };
  const rootBefore = toValue(before.root) as Record<string, unknown>;
  const rootAfter = toValue(after.root) as Record<string, unknown>;
  const mapBefore = before.serverMap ? (toValue(before.serverMap) as Record<string, unknown>) : {};
  const mapAfter = after.serverMap ? (toValue(after.serverMap) as Record<string, unknown>) : {};
  const sameKeys = isDeepStrictEqual(Object.keys(mapBefore), Object.keys(mapAfter));
  const entriesOk = Object.keys(mapBefore).every((name) =>
    changed.has(name) ? isDeepStrictEqual(strip(mapBefore[name]), strip(mapAfter[name])) : isDeepStrictEqual(mapBefore[name], mapAfter[name]),
  );
  const outside = (root: Record<string, unknown>): unknown => {
    const copy = structuredClone(root);
    let holder: Record<string, unknown> = copy;
    const path = before.serverPath;
    for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
    if (path.length > 0) delete holder[path[path.length - 1]!];
    return copy;
  };
  if (!sameKeys || !entriesOk || !isDeepStrictEqual(outside(rootBefore), outside(rootAfter))) {
    throw new Error('internal: the edited configuration differs outside the wrapped entries; nothing was written');
  }
  return after;
}
