import type { z } from 'zod';
import { AgentPolicySchema } from '../../../src-shared/policy/schema.js';
import { descriptionOf, layers, schemaAt } from '../../../src-shared/policy/schema-kit.js';
import { keyContextAt, type KeyPath } from './policy-completion.js';

/*
 * Hover documentation and value completion for the policy editor, read from the AgentPolicy
 * schema the loader enforces (the same source as key completion, docs/policy-editor.md), so the
 * editor can never document a field the loader does not accept. Pure: no CodeMirror here.
 */

export interface PolicyFieldDoc {
  /** The key hovered and where it sits in the line's text. */
  key: string;
  from: number;
  to: number;
  /** Where the field is, written as a person reads it: `spec.tool_rules[].action`. */
  path: string;
  description: string;
  /** The values an enumerated field accepts; empty for free-form fields. */
  values: string[];
  /** The value used when the key is left out, as written in YAML. */
  defaultValue?: string;
}

const KEY_LINE = /^( *)(- +)?([A-Za-z_][\w-]*|"[^"\n]+"|'[^'\n]+')\s*:(?=\s|$)/;

/** Reads a schema's wrappers for its enumerated values and its default, whichever layer holds them. */
function valuesOf(schema: z.ZodType): { values: string[]; defaultValue?: string } {
  let values: string[] = [];
  let defaultValue: string | undefined;
  for (const layer of layers(schema)) {
    const def = layer._zod.def as unknown as { type: string; entries?: Record<string, string>; defaultValue?: unknown };
    if (def.type === 'enum' && def.entries) values = Object.values(def.entries).map(String);
    if (def.type === 'boolean') values = ['true', 'false'];
    if (def.type === 'default' && defaultValue === undefined) {
      const value = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      if (['string', 'number', 'boolean'].includes(typeof value)) defaultValue = String(value);
    }
  }
  return { values, ...(defaultValue !== undefined ? { defaultValue } : {}) };
}

export function readablePath(path: KeyPath): string {
  return path.reduce<string>((out, segment) => (typeof segment === 'number' ? `${out}[]` : out ? `${out}.${segment}` : segment), '');
}

/** The documentation of the field whose key is at `pos`, or null where `pos` is not on a key the schema knows. */
export function policyFieldAt(text: string, pos: number): PolicyFieldDoc | null {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const lineEnd = text.indexOf('\n', pos);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  const match = KEY_LINE.exec(line);
  if (!match) return null;
  const from = lineStart + match[1]!.length + (match[2]?.length ?? 0);
  const written = match[3]!;
  const to = from + written.length;
  if (pos < from || pos > to) return null;
  const where = keyContextAt(text.slice(0, from), from);
  if (!where) return null;
  const key = /^["']/.test(written) ? written.slice(1, -1) : written;
  const path = [...where.path, key];
  const schema = schemaAt(AgentPolicySchema, path);
  if (!schema) return null;
  // A key of a free mapping (an argument name under allow_args) is described by that mapping.
  const description = descriptionOf(schema) ?? (where.path.length > 0 ? `An entry of ${readablePath(where.path)}: ${descriptionOf(schemaAt(AgentPolicySchema, where.path)) ?? ''}` : '');
  return { key, from, to, path: readablePath(path), description, ...valuesOf(schema) };
}

export interface ValueContext {
  /** Where the value being typed starts, and the values the field accepts. */
  from: number;
  values: string[];
}

const VALUE_BEING_TYPED = /^( *)(- +)?([A-Za-z_][\w-]*)\s*:\s+([\w-]*)$/;

/** The enumerated values the field whose value is typed at `pos` accepts, or null for free-form fields. */
export function valueContextAt(text: string, pos: number): ValueContext | null {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const typed = VALUE_BEING_TYPED.exec(text.slice(lineStart, pos));
  if (!typed) return null;
  const keyFrom = lineStart + typed[1]!.length + (typed[2]?.length ?? 0);
  const where = keyContextAt(text.slice(0, keyFrom), keyFrom);
  if (!where) return null;
  const schema = schemaAt(AgentPolicySchema, [...where.path, typed[3]!]);
  if (!schema) return null;
  const { values } = valuesOf(schema);
  return values.length === 0 ? null : { from: pos - typed[4]!.length, values };
}
