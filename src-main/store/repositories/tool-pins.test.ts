import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signToolCallApproval } from '../../approvals/tool-call-approval.js';
import { OwnerKeyVault } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { openDatabase } from '../database.js';
import { useTempDirs } from '../../testing/temp.js';
import { ApprovalConsumer } from '../../mcp/proxy/approval-consumer.js';
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

describe('ApprovalConsumer', () => {
  const signer = new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
  const keys = new Map([[signer.fingerprint, signer.publicKey as Uint8Array]]);
  const binding = { server: 'srv', tool: 'delete_file', args: { path: '/tmp/x' }, requestId: 3, sessionId: 's1' };

  it('consumes a valid approval once, in the transaction that records it; a replay is refused', () => {
    const database = db();
    const consumer = new ApprovalConsumer(database, () => keys, undefined);
    const approval = signToolCallApproval(binding, signer, new Date(), 60_000);
    const recorded: string[] = [];
    expect(consumer.consume(approval, binding, (nonce) => recorded.push(nonce))).toMatchObject({ ok: true, nonce: approval.payload.nonce });
    expect(consumer.consume(approval, binding, (nonce) => recorded.push(nonce))).toEqual({ ok: false, reason: expect.stringMatching(/already used/) });
    expect(recorded).toEqual([approval.payload.nonce]);
  });

  it('rolls the nonce back when recording fails, so nothing is consumed without its audit entry', () => {
    const database = db();
    const consumer = new ApprovalConsumer(database, () => keys, undefined);
    const approval = signToolCallApproval(binding, signer, new Date(), 60_000);
    expect(() =>
      consumer.consume(approval, binding, () => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(database.prepare('SELECT COUNT(*) AS n FROM mcp_approval_nonces').get()).toEqual({ n: 0 });
  });

  it('refuses altered, expired and foreign approvals, naming the problem', () => {
    const consumer = new ApprovalConsumer(db(), () => keys, undefined);
    const ok = () => signToolCallApproval(binding, signer, new Date(), 60_000);
    const altered = ok();
    altered.payload.tool = 'read_file';
    expect(consumer.consume(altered, binding, () => undefined)).toEqual({ ok: false, reason: 'approval signature is invalid' });
    expect(consumer.consume(ok(), { ...binding, args: { path: '/etc' } }, () => undefined)).toEqual({ ok: false, reason: 'approval is for other arguments' });
    const expired = signToolCallApproval(binding, signer, new Date(Date.now() - 120_000), 60_000);
    expect(consumer.consume(expired, binding, () => undefined)).toEqual({ ok: false, reason: 'approval has expired' });
    const stranger = new OwnerKeyVault(new MemorySecretStore(), 'other').ensure().signer;
    expect(consumer.consume(signToolCallApproval(binding, stranger, new Date(), 60_000), binding, () => undefined)).toMatchObject({ ok: false, reason: expect.stringMatching(/unknown key/) });
  });
});
