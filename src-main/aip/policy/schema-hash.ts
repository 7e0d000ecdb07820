import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';

export type SchemaHashAlgorithm = 'sha256' | 'sha384' | 'sha512';
export const SCHEMA_HASH_ALGORITHMS: readonly SchemaHashAlgorithm[] = ['sha256', 'sha384', 'sha512'];

/** The parts of an MCP tool definition (tools/list) that §3.5.4 hashes. */
export interface McpToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/**
 * §3.5.4 TOOL_SCHEMA_HASH: `<algorithm>:<hex>` of RFC 8785 JSON of
 * `{name, description, inputSchema}`.
 *
 * A member the server did not send is left out of the canonical object, not written as null
 * or "": the hash covers exactly what the server announced, so a description appearing,
 * vanishing or changing all change the hash. Other members of the definition (title,
 * annotations, outputSchema, _meta) are not hashed, as the spec's pseudocode has it.
 */
export function toolSchemaHash(tool: McpToolDefinition, algorithm: SchemaHashAlgorithm = 'sha256'): string {
  if (!SCHEMA_HASH_ALGORITHMS.includes(algorithm)) throw new TypeError(`unsupported schema hash algorithm "${String(algorithm)}"; expected sha256, sha384 or sha512`);
  const schema: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) schema.description = tool.description;
  if (tool.inputSchema !== undefined) schema.inputSchema = tool.inputSchema;
  return `${algorithm}:${createHash(algorithm).update(canonicalJson(schema), 'utf8').digest('hex')}`;
}

/**
 * The tool definitions in a tools/list result (`{tools: […]}`), a JSON-RPC response carrying
 * one (`{result: {tools: […]}}`) or a bare array. Throws a TypeError naming what is wrong.
 */
export function listTools(json: unknown): McpToolDefinition[] {
  let tools: unknown = json;
  if (isRecord(tools) && isRecord(tools.result)) tools = tools.result;
  if (isRecord(tools)) tools = tools.tools;
  if (!Array.isArray(tools)) {
    throw new TypeError('expected a tools/list result {"tools": [...]}, a JSON-RPC response {"result": {"tools": [...]}} or an array of tools');
  }
  return tools.map((tool, index) => {
    if (!isRecord(tool) || typeof tool.name !== 'string') throw new TypeError(`tools[${index}] is not a tool definition with a string "name"`);
    if (tool.description !== undefined && typeof tool.description !== 'string') throw new TypeError(`tools[${index}] ("${tool.name}") has a description that is not a string`);
    const definition: McpToolDefinition = { name: tool.name };
    if (tool.description !== undefined) definition.description = tool.description;
    if (tool.inputSchema !== undefined) definition.inputSchema = tool.inputSchema;
    return definition;
  });
}

/**
 * The tool whose normalised name (§4.1) equals the normalised `name`, or null. Throws when
 * the input has no tool list, or when two tools share the normalised name (ambiguous).
 */
export function findTool(json: unknown, name: string): McpToolDefinition | null {
  const wanted = normalizeName(name);
  const matches = listTools(json).filter((tool) => normalizeName(tool.name) === wanted);
  if (matches.length > 1) throw new TypeError(`${matches.length} tools are named "${wanted}" after normalisation (${matches.map((t) => JSON.stringify(t.name)).join(', ')}); the tools file is ambiguous`);
  return matches[0] ?? null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
