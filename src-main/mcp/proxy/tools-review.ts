import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { toolSchemaHash, type McpToolDefinition } from '../../aip/policy/schema-hash.js';
import { toolDefinitionHash } from '../../aip/policy/definition-hash.js';
import { scanServerInstructions, scanToolDefinition } from '../../aip/detect/tool-definition.js';
import type { DetectorFinding } from '../../aip/detect/finding.js';
import { PIN_FINDINGS_MAX, type PinFinding } from '../../store/repositories/tool-pins.js';
import type { ProxyContext } from './context.js';

type Message = Record<string, unknown>;

function isRecord(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type ToolReview = { ok: true; kept: unknown[] } | { ok: false; normalized: string; names: string[] };

/** The tool-definition detectors (aip/detect/tool-definition.ts); a seam for tests. */
export interface DefinitionScanner {
  tool(tool: Message, context: { otherTools: string[] }): DetectorFinding[];
  instructions(instructions: string, context: { otherTools: string[] }): DetectorFinding[];
}

const DEFINITION_DETECTORS: DefinitionScanner = {
  tool: (tool, context) => scanToolDefinition(tool, context),
  instructions: (instructions, context) => scanServerInstructions(instructions, context),
};

// A server re-sends the same nameless entry on every tools/list: it is recorded once per proxy run.
const droppedSeen = new WeakMap<ProxyContext, Set<string>>();

/**
 * Records each announced tool (definition for schema_hash, hash for the pin) and returns the
 * tools the client may see. Every definition is scanned for poisoning; the server's
 * `instructions` once per list, their findings counting against every tool, since every tool's
 * pin covers them. A tool is hidden until the person decides when its definition differs from
 * its pin or from the policy's schema_hash, or when, seen for the first time, the detectors flag
 * it and the policy holds flagged definitions (`x-silas-threats.tool_definitions: hold`).
 * Pins, definitions and hashes are keyed by the normalised name, the form the policy judges:
 * `Fetch` or `fetch`+U+200B is the pinned `fetch` changed, never a new tool. A list in which two
 * names normalise alike cannot be judged one tool at a time, so nothing of it is recorded and the
 * caller refuses it. An entry without a string name cannot be pinned or called: it is left out
 * and recorded.
 */
export function reviewTools(ctx: ProxyContext, tools: unknown[], requestId: string | number, scanner: DefinitionScanner = DEFINITION_DETECTORS): ToolReview {
  const byName = new Map<string, string>();
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string') continue;
    const normalized = normalizeName(tool.name);
    const first = byName.get(normalized);
    if (first !== undefined) return { ok: false, normalized, names: [first, tool.name] };
    byName.set(normalized, tool.name);
  }
  const announcedNames = [...byName.values()];
  const instructions = ctx.serverInstructions;
  const instructionFindings = instructions === undefined ? [] : scanner.instructions(instructions, { otherTools: announcedNames });
  const policy = ctx.state().policy;
  const hold = policy.threats.toolDefinitions === 'hold';
  const kept = tools.filter((tool, index) => {
    if (!isRecord(tool) || typeof tool.name !== 'string') {
      recordDropped(ctx, tool, index, requestId);
      return false;
    }
    const name = tool.name;
    const definition: McpToolDefinition = { name };
    if (typeof tool.description === 'string') definition.description = tool.description;
    if (tool.inputSchema !== undefined) definition.inputSchema = tool.inputSchema;
    const hash = toolDefinitionHash(tool, instructions);
    const normalized = normalizeName(name);
    const names = { tool: normalized, announced_name: name };
    ctx.toolDefs.set(normalized, definition);
    const previous = ctx.announcedHashes.get(normalized);
    ctx.announcedHashes.set(normalized, hash);

    const rule = policy.toolRules.get(normalized);
    if (rule?.schemaHash) {
      const actual = toolSchemaHash(definition, rule.schemaHash.algorithm);
      if (actual !== rule.schemaHash.source.toLowerCase()) {
        if (previous !== hash) ctx.audit.event('mcp.tool_hidden', { ...names, reason: 'schema_hash mismatch', expected_hash: rule.schemaHash.source, actual_hash: actual });
        return false;
      }
    }
    const findings = pinFindings([...scanner.tool(tool, { otherTools: announcedNames.filter((other) => other !== name) }), ...instructionFindings]);
    // A pin from before pins covered every field is widened, not treated as a change: otherwise
    // every tool with annotations, or of a server with instructions, would wait in Review after an upgrade.
    const specHash = toolSchemaHash(definition);
    if (findings.length === 0 && hash !== specHash && ctx.pins.widen(ctx.server, normalized, specHash, hash)) ctx.audit.event('mcp.tool_pinned', { ...names, hash });
    const seen = ctx.pins.observe(ctx.server, normalized, hash, { hold: hold && findings.length > 0, findings });
    switch (seen.kind) {
      case 'unchanged':
        return true;
      case 'pinned':
        ctx.audit.event('mcp.tool_pinned', { ...names, hash });
        // Offered because the policy allows flagged definitions: the ledger still says what was found.
        if (findings.length > 0) ctx.audit.event('mcp.tool_flagged', { ...names, hash, findings });
        return true;
      case 'held':
        if (seen.fresh) ctx.audit.event('mcp.tool_held', { ...names, hash, first_sight: true, findings });
        return false;
      case 'changed':
        if (seen.fresh) {
          ctx.audit.event('mcp.tool_changed', { ...names, expected_hash: seen.expected, actual_hash: seen.actual });
          if (findings.length > 0) ctx.audit.event('mcp.tool_held', { ...names, hash, first_sight: false, findings });
        }
        return false;
    }
  });
  return { ok: true, kept };
}

/** What a card and the ledger show of a finding (the span's offsets mean nothing once stored), a card's worth of them. */
function pinFindings(findings: readonly DetectorFinding[]): PinFinding[] {
  return findings.slice(0, PIN_FINDINGS_MAX).map(({ rule, description, path, excerpt }) => ({ rule, description, path, excerpt }));
}

function recordDropped(ctx: ProxyContext, tool: unknown, index: number, requestId: string | number): void {
  const name = isRecord(tool) ? tool.name : undefined;
  const reason = !isRecord(tool) ? 'the entry is not an object' : name === undefined ? 'the tool has no name' : `the tool's name is not a string (${name === null ? 'null' : Array.isArray(name) ? 'list' : typeof name})`;
  const key = `${index}\n${reason}`;
  const seen = droppedSeen.get(ctx) ?? new Set<string>();
  droppedSeen.set(ctx, seen);
  if (seen.has(key)) return;
  seen.add(key);
  // Only a scalar name is recorded as sent: an object could be as large as the server likes.
  const scalar = typeof name === 'number' || typeof name === 'boolean' || name === null;
  ctx.audit.event('mcp.tool_dropped', { index, reason, ...(scalar ? { name } : {}), request_id: requestId });
  ctx.log(`silas proxy: left out entry ${index} of ${ctx.server}'s tools list: ${reason}`);
}
