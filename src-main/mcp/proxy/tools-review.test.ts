import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/database.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { useTempDirs } from '../../testing/temp.js';
import { memorySeals } from '../../testing/seals.js';
import { toolPinSealer } from '../tool-pin-seals.js';
import { toolDefinitionHash } from '../../aip/policy/definition-hash.js';
import type { DetectorFinding } from '../../aip/detect/finding.js';
import type { ProxyContext } from './context.js';
import { reviewTools, type DefinitionScanner } from './tools-review.js';

/*
 * The pins' judgement of each tools/list, with a scripted scanner (the detectors have their own
 * tests): what is offered, what is held for the person and what the ledger says, at first sight
 * and on a change, under `tool_definitions: hold` and `allow`.
 */

const tempDir = useTempDirs('silas-tools-review-');

/** Flags the word TRIGGER wherever a description or the instructions carry it. */
const scanner: DefinitionScanner = {
  tool: (tool) => (typeof tool.description === 'string' ? flag(tool.description, 'description') : []),
  instructions: (text) => flag(text, 'instructions'),
};

function flag(text: string, path: string): DetectorFinding[] {
  const start = text.indexOf('TRIGGER');
  if (start < 0) return [];
  return [{ detector: 'tool_definition', rule: 'test_rule', description: 'a scripted finding', path, start, end: start + 7, excerpt: 'TRIGGER' }];
}

function setup(mode: 'hold' | 'allow' = 'hold') {
  const pins = new ToolPinRepository(openDatabase(join(tempDir(), 'silas.db'), { create: true }).db, toolPinSealer(memorySeals().seals));
  const events: { name: string; data: Record<string, unknown> }[] = [];
  const ctx = {
    server: 'srv',
    pins,
    audit: { event: (name: string, data: Record<string, unknown>) => events.push({ name, data }) },
    state: () => ({ policy: { threats: { toolDefinitions: mode }, toolRules: new Map() } }),
    toolDefs: new Map(),
    announcedHashes: new Map(),
    log: () => undefined,
  } as unknown as ProxyContext;
  const list = (tools: unknown[]) => {
    const review = reviewTools(ctx, tools, 1, scanner);
    if (!review.ok) throw new Error('refused');
    return review.kept.map((t) => (t as { name: string }).name);
  };
  const named = (name: string) => events.filter((e) => e.name === name).map((e) => e.data);
  return { ctx, pins, events, list, named };
}

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object' } });

describe('reviewTools', () => {
  it('pins clean tools at first sight and offers them', () => {
    const { list, named, pins } = setup();
    expect(list([tool('read', 'Reads'), tool('write', 'Writes')])).toEqual(['read', 'write']);
    expect(named('mcp.tool_pinned').map((d) => d.tool)).toEqual(['read', 'write']);
    expect(pins.get('srv', 'read')).toMatchObject({ approvedHash: toolDefinitionHash(tool('read', 'Reads')), sealed: true });
  });

  it('holds a flagged tool at first sight: not offered, pending with its findings, recorded once', () => {
    const { list, named, pins } = setup();
    const poisoned = tool('Fetch', 'Fetches. TRIGGER');
    expect(list([tool('read', 'Reads'), poisoned])).toEqual(['read']);
    expect(list([tool('read', 'Reads'), poisoned])).toEqual(['read']);
    const hash = toolDefinitionHash(poisoned);
    expect(named('mcp.tool_held')).toEqual([
      { tool: 'fetch', announced_name: 'Fetch', hash, first_sight: true, findings: [{ rule: 'test_rule', description: 'a scripted finding', path: 'description', excerpt: 'TRIGGER' }] },
    ]);
    expect(named('mcp.tool_pinned').map((d) => d.tool)).toEqual(['read']);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: null, pendingHash: hash, pendingFindings: [{ rule: 'test_rule', excerpt: 'TRIGGER' }] });
    // The person allows it: the next list offers it.
    expect(pins.approve('srv', 'fetch', hash)).toBe(true);
    expect(list([tool('read', 'Reads'), poisoned])).toEqual(['read', 'Fetch']);
  });

  it("with tool_definitions: allow, pins and offers a flagged tool and records the findings in the ledger", () => {
    const { list, named } = setup('allow');
    expect(list([tool('fetch', 'TRIGGER')])).toEqual(['fetch']);
    expect(named('mcp.tool_flagged')).toMatchObject([{ tool: 'fetch', findings: [{ rule: 'test_rule' }] }]);
    expect(named('mcp.tool_held')).toEqual([]);
  });

  it('a changed definition with findings is hidden as any change, its findings kept for the card', () => {
    const { list, named, pins } = setup('allow');
    list([tool('fetch', 'Fetches')]);
    expect(list([tool('fetch', 'Fetches. TRIGGER')])).toEqual([]);
    expect(named('mcp.tool_changed')).toHaveLength(1);
    expect(named('mcp.tool_held')).toMatchObject([{ tool: 'fetch', first_sight: false }]);
    expect(pins.get('srv', 'fetch')!.pendingFindings).toMatchObject([{ rule: 'test_rule' }]);
  });

  it("flagged server instructions hold every tool at first sight, and the instructions are part of each pin", () => {
    const { ctx, list, named, pins } = setup();
    ctx.serverInstructions = 'Use these tools. TRIGGER';
    expect(list([tool('read', 'Reads'), tool('write', 'Writes')])).toEqual([]);
    expect(named('mcp.tool_held').map((d) => [d.tool, (d.findings as { path: string }[])[0]!.path])).toEqual([
      ['read', 'instructions'],
      ['write', 'instructions'],
    ]);
    expect(pins.get('srv', 'read')!.pendingHash).toBe(toolDefinitionHash(tool('read', 'Reads'), 'Use these tools. TRIGGER'));
    expect(pins.get('srv', 'read')!.pendingHash).not.toBe(toolDefinitionHash(tool('read', 'Reads')));
  });

  it('a pinned tool whose server instructions change waits for the person', () => {
    const { ctx, list, named } = setup();
    ctx.serverInstructions = 'Be brief.';
    expect(list([tool('read', 'Reads')])).toEqual(['read']);
    ctx.serverInstructions = 'Be thorough.';
    expect(list([tool('read', 'Reads')])).toEqual([]);
    expect(named('mcp.tool_changed')).toHaveLength(1);
  });

  it('drops and records, once, an entry without a string name; the rest of the list is judged as usual', () => {
    const { list, named } = setup();
    const tools = [{ description: 'nameless' }, { name: 42 }, 'not a tool', { name: { deep: 'x'.repeat(10_000) } }, tool('read', 'Reads')];
    expect(list(tools)).toEqual(['read']);
    expect(list(tools)).toEqual(['read']);
    expect(named('mcp.tool_dropped')).toEqual([
      { index: 0, reason: 'the tool has no name', request_id: 1 },
      { index: 1, reason: "the tool's name is not a string (number)", name: 42, request_id: 1 },
      { index: 2, reason: 'the entry is not an object', request_id: 1 },
      { index: 3, reason: "the tool's name is not a string (object)", request_id: 1 },
    ]);
  });

  it('refuses a list whose names normalise alike, recording nothing of it', () => {
    const { ctx, events, pins } = setup();
    expect(reviewTools(ctx, [tool('fetch', 'a'), tool('Fetch', 'TRIGGER')], 1, scanner)).toEqual({ ok: false, normalized: 'fetch', names: ['fetch', 'Fetch'] });
    expect(events).toEqual([]);
    expect(pins.list()).toEqual([]);
  });
});
