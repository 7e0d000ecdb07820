import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { toolSchemaHash, type McpToolDefinition } from './schema-hash.js';

/**
 * The members of a tool definition, besides name, description and inputSchema, that the agent
 * reads (MCP tools/list). A change to any of them changes what the model is told about the tool,
 * so each must change the pin.
 */
const EXTRA_MEMBERS = ['title', 'outputSchema', 'annotations', '_meta'] as const;

/**
 * The pin hash of a tool: every field the agent reads. `sha256:` of the RFC 8785 JSON of
 * {schema: toolSchemaHash(...), title, outputSchema, annotations, _meta, instructions} (absent
 * members left out), where `schema` is the spec 001 §3.5.4 hash of name, description and
 * inputSchema (schema-hash.ts).
 *
 * The plain hash is nested rather than its members repeated, so this hash never equals a §3.5.4
 * one, even for a tool with nothing else: a pin that holds a §3.5.4 hash was written before pins
 * covered every field, and is widened once (tool-pins.ts `widen`) rather than taken for a change.
 * A member is absent only when undefined: `""` or `null` sent by the server is something it said,
 * and is hashed.
 */
export function toolDefinitionHash(tool: Record<string, unknown>, serverInstructions?: string): string {
  const schema = toolSchemaHash(schemaPart(tool));
  const extended: Record<string, unknown> = {};
  for (const member of EXTRA_MEMBERS) {
    if (tool[member] !== undefined) extended[member] = tool[member];
  }
  if (serverInstructions !== undefined) extended.instructions = serverInstructions;
  return `sha256:${createHash('sha256').update(canonicalJson({ schema, ...extended }), 'utf8').digest('hex')}`;
}

/** The §3.5.4 members exactly as announced (an absent one left absent, as toolSchemaHash does). */
function schemaPart(tool: Record<string, unknown>): McpToolDefinition {
  const part: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) part.description = tool.description;
  if (tool.inputSchema !== undefined) part.inputSchema = tool.inputSchema;
  return part as unknown as McpToolDefinition;
}
