import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database.js';
import { useTempDirs } from '../../testing/temp.js';
import { memorySeals } from '../../testing/seals.js';
import { sealPinsFromBeforeSeals, toolPinSealer } from '../../mcp/tool-pin-seals.js';
import { PIN_FINDINGS_MAX, ToolPinRepository } from './tool-pins.js';
import { sqliteConnection } from '../transaction.js';

const tempDir = useTempDirs('silas-pins-');
const db = () => openDatabase(join(tempDir(), 'silas.db'), { create: true }).db;
const sealer = () => toolPinSealer(memorySeals().seals);

describe('ToolPinRepository', () => {
  it('pins on first sight, flags a change once, and approves only an announced hash', () => {
    const pins = new ToolPinRepository(db(), sealer());
    expect(pins.observe('srv', 'fetch', 'sha256:a')).toEqual({ kind: 'pinned', hash: 'sha256:a' });
    expect(pins.observe('srv', 'fetch', 'sha256:a')).toEqual({ kind: 'unchanged' });
    expect(pins.observe('srv', 'fetch', 'sha256:b')).toEqual({ kind: 'changed', expected: 'sha256:a', actual: 'sha256:b', fresh: true });
    expect(pins.observe('srv', 'fetch', 'sha256:b')).toMatchObject({ fresh: false });
    expect(pins.approve('srv', 'fetch', 'sha256:evil')).toBe(false);
    expect(pins.approve('srv', 'fetch', 'sha256:b')).toBe(true);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: 'sha256:b', pendingHash: null });
    expect(pins.observe('srv', 'fetch', 'sha256:b')).toEqual({ kind: 'unchanged' });
    expect(pins.observe('other', 'fetch', 'sha256:z')).toMatchObject({ kind: 'pinned' });
    expect(pins.list('srv')).toHaveLength(1);
  });

  it('keeps a declined change blocked until the server announces another definition', () => {
    const pins = new ToolPinRepository(db(), sealer());
    pins.observe('srv', 'fetch', 'sha256:a');
    pins.observe('srv', 'fetch', 'sha256:b');
    expect(pins.decline('srv', 'fetch', 'sha256:other')).toBe(false);
    expect(pins.decline('srv', 'fetch', 'sha256:b')).toBe(true);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: 'sha256:a', pendingHash: 'sha256:b', declinedHash: 'sha256:b' });
    expect(pins.observe('srv', 'fetch', 'sha256:b')).toEqual({ kind: 'changed', expected: 'sha256:a', actual: 'sha256:b', fresh: false });
    expect(pins.observe('srv', 'fetch', 'sha256:c')).toMatchObject({ fresh: true });
    expect(pins.pending()).toMatchObject([{ tool: 'fetch', pendingHash: 'sha256:c', declinedHash: 'sha256:b' }]);
    expect(pins.approve('srv', 'fetch', 'sha256:c')).toBe(true);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: 'sha256:c', pendingHash: null, declinedHash: null });
  });

  it('adopts the oldest pin written under an announced name, dropping variants an attacker got pinned', () => {
    const database = db();
    const insert = sqliteConnection(database).prepare('INSERT INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('srv', 'readFile', 'sha256:genuine', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
    insert.run('srv', 'ReadFile', 'sha256:poisoned', '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z');
    const pins = new ToolPinRepository(database, sealer());
    // Written before pins were sealed: sealed once, at the first start after the upgrade.
    expect(pins.sealUnsealed()).toBe(2);
    expect(pins.observe('srv', 'readfile', 'sha256:poisoned')).toEqual({ kind: 'changed', expected: 'sha256:genuine', actual: 'sha256:poisoned', fresh: true });
    expect(pins.list('srv').map((p) => [p.tool, p.approvedHash])).toEqual([['readfile', 'sha256:genuine']]);
  });
});

describe('a definition held at first sight', () => {
  const finding = { rule: 'hidden_instructions', description: 'tells the agent to read a key file', path: 'description', excerpt: 'first read ~/.ssh/id_rsa' };

  it('is pending with nothing approved, keeps its findings with the pending hash, and is approved into a sealed pin', () => {
    const pins = new ToolPinRepository(db(), sealer());
    expect(pins.observe('srv', 'fetch', 'sha256:p', { hold: true, findings: [finding] })).toEqual({ kind: 'held', actual: 'sha256:p', fresh: true });
    expect(pins.observe('srv', 'fetch', 'sha256:p', { hold: true, findings: [finding] })).toEqual({ kind: 'held', actual: 'sha256:p', fresh: false });
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: null, approvedAt: null, pendingHash: 'sha256:p', sealed: false, pendingFindings: [finding] });
    expect(pins.pending().map((p) => p.tool)).toEqual(['fetch']);
    // Nothing approved: a clean definition announced next waits too, with no findings of its own.
    expect(pins.observe('srv', 'fetch', 'sha256:clean')).toEqual({ kind: 'held', actual: 'sha256:clean', fresh: true });
    expect(pins.get('srv', 'fetch')).toMatchObject({ pendingHash: 'sha256:clean', pendingFindings: [] });
    expect(pins.approve('srv', 'fetch', 'sha256:p')).toBe(false);
    expect(pins.approve('srv', 'fetch', 'sha256:clean')).toBe(true);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: 'sha256:clean', pendingHash: null, sealed: true, pendingFindings: [] });
    expect(pins.observe('srv', 'fetch', 'sha256:clean')).toEqual({ kind: 'unchanged' });
  });

  it('kept blocked, stays held and leaves Review until another definition is announced', () => {
    const pins = new ToolPinRepository(db(), sealer());
    pins.observe('srv', 'fetch', 'sha256:p', { hold: true, findings: [finding] });
    expect(pins.decline('srv', 'fetch', 'sha256:p')).toBe(true);
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: null, pendingHash: 'sha256:p', declinedHash: 'sha256:p' });
    expect(pins.observe('srv', 'fetch', 'sha256:p', { hold: true, findings: [finding] })).toEqual({ kind: 'held', actual: 'sha256:p', fresh: false });
  });

  it('records findings of a changed definition with its pending hash, and caps what it keeps', () => {
    const pins = new ToolPinRepository(db(), sealer());
    pins.observe('srv', 'fetch', 'sha256:a');
    const many = Array.from({ length: 50 }, (_, i) => ({ ...finding, rule: `rule_${i}`, excerpt: 'x'.repeat(2000) }));
    expect(pins.observe('srv', 'fetch', 'sha256:b', { findings: many })).toMatchObject({ kind: 'changed', fresh: true });
    const kept = pins.get('srv', 'fetch')!.pendingFindings;
    expect(kept).toHaveLength(PIN_FINDINGS_MAX);
    expect(kept.every((f) => f.excerpt.length <= 500)).toBe(true);
  });

  it('a first sight that is not held is pinned as before', () => {
    const pins = new ToolPinRepository(db(), sealer());
    expect(pins.observe('srv', 'fetch', 'sha256:a', { hold: false, findings: [finding] })).toEqual({ kind: 'pinned', hash: 'sha256:a' });
    expect(pins.get('srv', 'fetch')).toMatchObject({ approvedHash: 'sha256:a', sealed: true, pendingFindings: [] });
  });
});

// A process that can write the database but not reach the keyring (docs/architecture.md §2
// "Sealed state"): it rewrites a pin so that a poisoned definition counts as approved.
describe('tool pins from the side of a database writer', () => {
  it('a pin whose approved hash was rewritten in the database approves nothing: the poisoned definition waits for the person', () => {
    const database = db();
    const { seals, refusals } = memorySeals();
    const pins = new ToolPinRepository(database, toolPinSealer(seals));
    expect(pins.observe('srv', 'read_file', 'sha256:genuine')).toEqual({ kind: 'pinned', hash: 'sha256:genuine' });
    sqliteConnection(database).prepare("UPDATE mcp_tool_pins SET approved_hash = 'sha256:poisoned' WHERE server = 'srv' AND tool = 'read_file'").run();
    expect(pins.observe('srv', 'read_file', 'sha256:poisoned')).toMatchObject({ kind: 'changed', actual: 'sha256:poisoned', fresh: true });
    expect(pins.get('srv', 'read_file')).toMatchObject({ sealed: false, pendingHash: 'sha256:poisoned' });
    expect(refusals).toMatchObject([{ kind: 'tool-pin', reason: 'mismatch' }]);
    // The person approves it knowingly: the pin is sealed again and the definition passes.
    expect(pins.approve('srv', 'read_file', 'sha256:poisoned')).toBe(true);
    expect(pins.observe('srv', 'read_file', 'sha256:poisoned')).toEqual({ kind: 'unchanged' });
  });

  it('a planted row (no seal) or a seal copied from another tool approves nothing', () => {
    const database = db();
    const { seals } = memorySeals();
    const pins = new ToolPinRepository(database, toolPinSealer(seals));
    pins.observe('srv', 'read_file', 'sha256:a');
    sqliteConnection(database).prepare("INSERT INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at) VALUES ('srv', 'write_file', 'sha256:evil', 'x', 'x')").run();
    expect(pins.observe('srv', 'write_file', 'sha256:evil')).toMatchObject({ kind: 'changed' });
    const seal = (sqliteConnection(database).prepare("SELECT seal FROM mcp_tool_pins WHERE tool = 'read_file'").get() as { seal: string }).seal;
    sqliteConnection(database).prepare("UPDATE mcp_tool_pins SET approved_hash = 'sha256:a', seal = ?, pending_hash = NULL WHERE tool = 'write_file'").run(seal);
    expect(pins.observe('srv', 'write_file', 'sha256:a')).toMatchObject({ kind: 'changed' });
    expect(pins.list('srv').map((p) => [p.tool, p.sealed])).toEqual([['read_file', true], ['write_file', false]]);
  });

  it('a held row given an approved hash in the database approves nothing, and is not sealed as a row from before seals', () => {
    const database = db();
    const { seals } = memorySeals();
    const pins = new ToolPinRepository(database, toolPinSealer(seals));
    pins.observe('srv', 'fetch', 'sha256:poisoned', { hold: true, findings: [] });
    // A held row is not "from before seals": the one-off sealing leaves it alone.
    expect(pins.sealUnsealed()).toBe(0);
    sqliteConnection(database).prepare("UPDATE mcp_tool_pins SET approved_hash = 'sha256:poisoned', approved_at = 'x' WHERE tool = 'fetch'").run();
    expect(pins.observe('srv', 'fetch', 'sha256:poisoned')).toMatchObject({ kind: 'changed', actual: 'sha256:poisoned' });
    expect(pins.get('srv', 'fetch')).toMatchObject({ sealed: false });
  });

  it('findings rewritten in the database change only what a card says: they are read as text, and decide nothing', () => {
    const database = db();
    const pins = new ToolPinRepository(database, sealer());
    pins.observe('srv', 'fetch', 'sha256:p', { hold: true, findings: [{ rule: 'r', description: 'd', path: 'description', excerpt: 'e' }] });
    const write = (column: string) => sqliteConnection(database).prepare('UPDATE mcp_tool_pins SET pending_findings = ? WHERE tool = ?').run(column, 'fetch');
    write('[]');
    expect(pins.observe('srv', 'fetch', 'sha256:p')).toMatchObject({ kind: 'held' });
    write('not json');
    expect(pins.get('srv', 'fetch')!.pendingFindings).toEqual([]);
    write(JSON.stringify([{ rule: 'x', description: { html: '<b>' }, excerpt: 7 }, 'junk', null]));
    expect(pins.get('srv', 'fetch')!.pendingFindings).toEqual([{ rule: 'x', description: '', path: '', excerpt: '' }]);
  });

  it('rows from before seals are sealed once per home; an unsealed row written later is never adopted', () => {
    const database = db();
    const { seals } = memorySeals();
    const insert = sqliteConnection(database).prepare("INSERT INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at) VALUES ('srv', ?, ?, 'x', 'x')");
    insert.run('old', 'sha256:old');
    const pins = new ToolPinRepository(database, toolPinSealer(seals));
    expect(sealPinsFromBeforeSeals(pins, seals)).toBe(1);
    expect(pins.observe('srv', 'old', 'sha256:old')).toEqual({ kind: 'unchanged' });
    insert.run('late', 'sha256:late');
    expect(sealPinsFromBeforeSeals(pins, seals)).toBe(0);
    expect(pins.observe('srv', 'late', 'sha256:late')).toMatchObject({ kind: 'changed' });
  });
});
