import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database.js';
import { useTempDirs } from '../../testing/temp.js';
import { memorySeals } from '../../testing/seals.js';
import { sealPinsFromBeforeSeals, toolPinSealer } from '../../mcp/tool-pin-seals.js';
import { ToolPinRepository } from './tool-pins.js';
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
