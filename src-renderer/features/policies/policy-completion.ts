import { AgentPolicySchema } from '../../../src-shared/policy/schema.js';
import { descriptionOf, mappingAt, schemaAt } from '../../../src-shared/policy/schema-kit.js';

/*
 * Key completion for the policy editor, read from the AgentPolicy schema the loader enforces
 * (src-shared/policy/schema.ts): the keys offered at the cursor are exactly the keys the mapping
 * there accepts, each with its `.describe()` text. Only the editor's lazily loaded chunk imports
 * this, so the schema stays out of the main bundle. Pure: no CodeMirror here.
 */

/** Mapping keys and sequence indices from the document's root, as the schema is walked. */
export type KeyPath = ReadonlyArray<string | number>;

export interface PolicyKey {
  key: string;
  /** The schema's description of the field; empty when it has none. */
  description: string;
}

/** The keys the mapping at `path` accepts (none where the schema has no mapping). */
export function policyKeysAt(path: KeyPath): PolicyKey[] {
  const mapping = mappingAt(AgentPolicySchema, path);
  if (!mapping) return [];
  return mapping.keys.map((key) => ({ key, description: descriptionOf(schemaAt(AgentPolicySchema, [...path, key])) ?? '' }));
}

/** The keys of `spec` (allowed_tools, tool_rules, dlp…). */
export function specKeys(): string[] {
  return policyKeysAt(['spec']).map((entry) => entry.key);
}

export interface KeyContext {
  /** The mapping the key being typed belongs to. */
  path: KeyPath;
  /** Where the key being typed starts, and what is typed of it so far. */
  from: number;
  prefix: string;
}

const KEY_BEING_TYPED = /^( *)(- +)?([A-Za-z_][\w-]*)?$/;
const LINE = /^( *)(- +)?(.*)$/;
/** A key that opens a nested mapping or sequence: nothing but a comment after the colon. */
const OPENING_KEY = /^([A-Za-z_][\w-]*|"[^"]+"|'[^']+')\s*:\s*(?:#.*)?$/;

const unquote = (key: string) => (/^["']/.test(key) ? key.slice(1, -1) : key);

/**
 * Where the cursor at `pos` types a mapping key, found from the indentation of the lines above
 * (block-style YAML, as policies are written); null where it is not at a key, or the structure
 * above is not one this reading follows (flow style, a key under a scalar).
 */
export function keyContextAt(text: string, pos: number): KeyContext | null {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const typed = KEY_BEING_TYPED.exec(text.slice(lineStart, pos));
  if (!typed) return null;
  const prefix = typed[3] ?? '';
  const path: Array<string | number> = [];
  // `limit`: the column of the mapping the key is in; `inItem`: that mapping is a sequence item whose dash sits at `limit`.
  let limit = typed[1]!.length + (typed[2]?.length ?? 0);
  let inItem = false;
  if (typed[2]) {
    path.unshift(0);
    limit = typed[1]!.length;
    inItem = true;
  }
  let end = lineStart - 1;
  while (end >= 0 && (limit > 0 || inItem)) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const [, indent = '', dash, rest = ''] = LINE.exec(text.slice(start, end))!;
    end = start - 1;
    if (rest.trim() === '' || rest.trimStart().startsWith('#')) continue;
    const column = indent.length + (dash?.length ?? 0);
    if (inItem && dash && indent.length === limit) continue; // an earlier item of the same sequence
    if (!inItem && dash && column === limit && indent.length < limit) {
      // The first line of the item the cursor's mapping belongs to.
      path.unshift(0);
      limit = indent.length;
      inItem = true;
      continue;
    }
    const parent = inItem ? column <= limit : column < limit;
    if (!parent) continue;
    const opening = OPENING_KEY.exec(rest);
    if (!opening) return null;
    path.unshift(unquote(opening[1]!));
    limit = column;
    inItem = false;
    if (dash) {
      path.unshift(0);
      limit = indent.length;
      inItem = true;
    }
  }
  return { path, from: pos - prefix.length, prefix };
}
