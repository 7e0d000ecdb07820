import type { ScanSession, ScanSlot } from './scan.js';

/*
 * Walks a JSON value iteratively (an explicit stack: 10,000-level nesting cannot overflow the
 * call stack), feeding every string value to a ScanSession, then writes the redacted strings
 * back copy-on-write: only the containers on a path to a changed string are copied (shallowly,
 * keeping key order, `__proto__` keys as own data properties, and the prototype); every untouched
 * subtree, and the root itself when nothing changed, is returned as the same object.
 *
 * Object keys are scanned too (a secret can be sent as a key): a redacted key renames the
 * property in place, keeping its position; when two redacted keys of one object come out equal,
 * later ones get ` #2`, ` #3`… so no value is lost. The field names MCP itself defines
 * (MCP_FIELDS) are not scanned where they are structure: in a result, content item or resource. Numbers are scanned as their JSON text
 * (String(n), which is how JSON.stringify writes them) and a redacted number becomes the
 * redacted string. Booleans and null pass through.
 *
 * MCP awareness (redactResponse only), for `result.content[]` items (tools/call, also
 * prompts-style content lists) and `result.contents[]` (resources/read):
 *   text           every string except `type` (so `text`, `annotations`, `_meta`…)
 *   image / audio  `data` is base64: scanned only with detect_encoding (decoded); `type` skipped
 *   resource       `resource.blob` likewise; `resource.text`, `resource.uri`, `mimeType`… scanned
 *   resource_link  every string except `type` (`uri`, `name`, `title`, `description`…)
 *   other types    every string, `type` included (unknown shape: nothing is assumed safe)
 * `structuredContent`, `_meta`, `isError` results and any other value: every string at any depth.
 *
 * Input must be a tree (as JSON.parse produces): a container reached twice (shared or cyclic)
 * throws DlpInputError, so the caller fails closed instead of looping or double-rewriting.
 */

export class DlpInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DlpInputError';
  }
}

type Container = Record<string, unknown> | unknown[];

const CTX_GENERIC = 0;
const CTX_RESULT = 1;
const CTX_CONTENT_LIST = 2;
const CTX_RESOURCE_LIST = 3;
const CTX_ITEM = 4;
const CTX_RESOURCE = 5;

export type WalkRoot = 'generic' | 'mcp-result';

const KNOWN_ITEM_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);
/** Field names MCP defines for results, content items and resources: structure, never renamed there. */
const MCP_FIELDS = new Set(['content', 'contents', 'structuredContent', 'isError', '_meta', 'type', 'text', 'data', 'mimeType', 'annotations', 'resource', 'uri', 'name', 'title', 'description', 'blob', 'size', 'icons']);

interface Frame {
  container: Container;
  parent: Frame | null;
  key: string | number;
  copy: Container | null;
  ctx: number;
  itemType: string;
}

export interface WalkSlot extends ScanSlot {
  frame: Frame | null;
  key: string | number;
  /** The slot is the property name `key` itself, not its value. */
  isKey?: boolean;
}

interface Cursor {
  frame: Frame;
  keys: string[] | null;
  i: number;
  n: number;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  return !Array.isArray(value);
}

function childContainerCtx(frame: Frame, key: string | number, value: object): { ctx: number; itemType: string } {
  switch (frame.ctx) {
    case CTX_RESULT:
      if (key === 'content' && Array.isArray(value)) return { ctx: CTX_CONTENT_LIST, itemType: '' };
      if (key === 'contents' && Array.isArray(value)) return { ctx: CTX_RESOURCE_LIST, itemType: '' };
      break;
    case CTX_CONTENT_LIST:
      if (isPlainObject(value)) {
        const type = value.type;
        if (typeof type === 'string' && KNOWN_ITEM_TYPES.has(type)) return { ctx: CTX_ITEM, itemType: type };
      }
      break;
    case CTX_RESOURCE_LIST:
      if (isPlainObject(value)) return { ctx: CTX_RESOURCE, itemType: '' };
      break;
    case CTX_ITEM:
      if (frame.itemType === 'resource' && key === 'resource' && isPlainObject(value)) return { ctx: CTX_RESOURCE, itemType: '' };
      break;
    default:
      break;
  }
  return { ctx: CTX_GENERIC, itemType: '' };
}

const SKIP = 0;
const TEXT = 1;
const ENCODED = 2;

function stringMode(frame: Frame, key: string | number): number {
  if (frame.ctx === CTX_ITEM) {
    if (key === 'type') return SKIP;
    if (key === 'data' && (frame.itemType === 'image' || frame.itemType === 'audio')) return ENCODED;
    return TEXT;
  }
  if (frame.ctx === CTX_RESOURCE) return key === 'blob' ? ENCODED : TEXT;
  return TEXT;
}

function shallowCopy(container: Container): Container {
  if (Array.isArray(container)) return container.slice();
  // Spread defines own data properties (an own `__proto__` key stays data, never the setter).
  const copy: Record<string, unknown> = { ...container };
  const proto: unknown = Object.getPrototypeOf(container);
  if (proto !== Object.prototype) Object.setPrototypeOf(copy, proto as object | null);
  return copy;
}

function define(target: Container, key: string | number, value: unknown): void {
  if (Array.isArray(target)) {
    target[key as number] = value;
    return;
  }
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Scans every string of `root` through `session` and returns the redacted value (the same object when nothing changed). */
export function walkAndRedact(root: unknown, session: ScanSession<WalkSlot>, kind: WalkRoot): unknown {
  if (typeof root === 'string' || (typeof root === 'number' && Number.isFinite(root))) {
    const slot: WalkSlot = { text: String(root), encoded: false, out: null, frame: null, key: '' };
    session.add(slot);
    session.finish();
    return slot.out ?? root;
  }
  if (root === null || typeof root !== 'object') return root;

  const seen = new Set<object>();
  const rootFrame: Frame = { container: root as Container, parent: null, key: '', copy: null, ctx: kind === 'mcp-result' && isPlainObject(root) ? CTX_RESULT : CTX_GENERIC, itemType: '' };
  const stack: Cursor[] = [];
  const open = (frame: Frame): void => {
    if (seen.has(frame.container)) throw new DlpInputError('DLP: the value is not a JSON tree (a container is reachable twice)');
    seen.add(frame.container);
    const keys = Array.isArray(frame.container) ? null : Object.keys(frame.container);
    stack.push({ frame, keys, i: 0, n: keys === null ? (frame.container as unknown[]).length : keys.length });
  };
  open(rootFrame);

  walk: while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.n) {
      stack.pop();
      continue;
    }
    const key: string | number = top.keys === null ? top.i : top.keys[top.i]!;
    top.i += 1;
    const frame = top.frame;
    if (typeof key === 'string' && key.length > 0 && !(frame.ctx !== CTX_GENERIC && MCP_FIELDS.has(key)) && !session.add({ text: key, encoded: false, out: null, frame, key, isKey: true })) break walk;
    const value = (frame.container as Record<string | number, unknown>)[key];
    if (typeof value === 'number') {
      if (Number.isFinite(value) && !session.add({ text: String(value), encoded: false, out: null, frame, key })) break walk;
    } else if (typeof value === 'string') {
      if (value.length === 0) continue;
      const mode = stringMode(frame, key);
      if (mode === SKIP) continue;
      if (!session.add({ text: value, encoded: mode === ENCODED, out: null, frame, key, joinable: mode !== ENCODED })) break walk;
    } else if (value !== null && typeof value === 'object') {
      const { ctx, itemType } = childContainerCtx(frame, key, value);
      open({ container: value as Container, parent: frame, key, copy: null, ctx, itemType });
    }
  }
  session.finish();

  if (session.changed.length === 0) return root;
  const renames = new Map<Frame, Map<string, string>>();
  for (const slot of session.changed) {
    const frame = slot.frame!;
    if (slot.isKey === true) {
      let names = renames.get(frame);
      if (names === undefined) renames.set(frame, (names = new Map()));
      names.set(slot.key as string, slot.out!);
      continue;
    }
    define(ensureCopy(frame), slot.key, slot.out);
  }
  // After the values: their writes address properties by the original names.
  for (const [frame, names] of renames) renameKeys(ensureCopy(frame) as Record<string, unknown>, names);
  return rootFrame.copy;
}

/** Renames properties of `target` (a copy this walk owns) in place, keeping order and every value. */
function renameKeys(target: Record<string, unknown>, names: Map<string, string>): void {
  const entries = Object.keys(target).map((key) => [key, target[key]] as const);
  for (const [key] of entries) delete target[key];
  const taken = new Set<string>();
  for (const [key] of entries) if (!names.has(key)) taken.add(key);
  for (const [key, value] of entries) {
    let name = names.get(key);
    if (name === undefined) name = key;
    else {
      const base = name;
      for (let n = 2; taken.has(name); n += 1) name = `${base} #${n}`;
      taken.add(name);
    }
    define(target, name, value);
  }
}

/** The copy of `frame`'s container, copying (once) every ancestor on the way up that is not copied yet. */
function ensureCopy(frame: Frame): Container {
  if (frame.copy !== null) return frame.copy;
  const chain: Frame[] = [];
  let current: Frame | null = frame;
  while (current !== null && current.copy === null) {
    chain.push(current);
    current = current.parent;
  }
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const link = chain[i]!;
    link.copy = shallowCopy(link.container);
    if (link.parent !== null) define(link.parent.copy!, link.key, link.copy);
  }
  return frame.copy!;
}
