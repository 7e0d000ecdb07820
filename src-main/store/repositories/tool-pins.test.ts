import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database.js';
import { useTempDirs } from '../../testing/temp.js';
import { ToolPinRepository } from './tool-pins.js';

const tempDir = useTempDirs('silas-pins-');
const db = () => openDatabase(join(tempDir(), 'silas.db'), { create: true }).db;

describe('ToolPinRepository', () => {
  it('pins on first sight, flags a change once, and approves only an announced hash', () => {
    const pins = new ToolPinRepository(db());
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
    const pins = new ToolPinRepository(db());
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
    const insert = database.prepare('INSERT INTO mcp_tool_pins (server, tool, approved_hash, first_seen_at, approved_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('srv', 'readFile', 'sha256:genuine', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
    insert.run('srv', 'ReadFile', 'sha256:poisoned', '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z');
    const pins = new ToolPinRepository(database);
    expect(pins.observe('srv', 'readfile', 'sha256:poisoned')).toEqual({ kind: 'changed', expected: 'sha256:genuine', actual: 'sha256:poisoned', fresh: true });
    expect(pins.list('srv').map((p) => [p.tool, p.approvedHash])).toEqual([['readfile', 'sha256:genuine']]);
  });
});
