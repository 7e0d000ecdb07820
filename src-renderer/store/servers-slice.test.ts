import { describe, expect, it } from 'vitest';
import { governedServer, hash, pin } from '../test/server-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';
import { affectsServers } from './servers-slice.js';
import { auditEvents } from '../../src-shared/audit/events.js';

const fetchKey = { server: 'web', tool: 'fetch' };
const changed = () => governedServer('web', { pins: [pin('fetch', { pendingHash: hash('b'), pendingSince: '2026-01-02T00:00:00.000Z' }), pin('stable')] });

describe('servers slice', () => {
  it('loads, keeps the last list through a failed reload, and reports the failure', () => {
    const store = createCockpitStore();
    expect(store.getState().servers).toMatchObject({ status: 'idle', servers: [] });
    store.getState().serversLoading();
    expect(store.getState().servers.status).toBe('loading');
    store.getState().serversFailed('runtime gone');
    expect(store.getState().servers).toMatchObject({ status: 'error', error: 'runtime gone' });
    store.getState().serversLoading();
    store.getState().serversLoaded([governedServer('files')]);
    expect(store.getState().servers).toMatchObject({ status: 'ready', error: null });
    store.getState().serversLoading();
    expect(store.getState().servers.status).toBe('ready');
    store.getState().serversFailed('again');
    expect(store.getState().servers).toMatchObject({ status: 'ready', error: 'again' });
    expect(store.getState().servers.servers.map((s) => s.name)).toEqual(['files']);
  });

  it('marks an approved change as the trusted definition at once', () => {
    const store = createCockpitStore();
    store.getState().serversLoaded([changed(), governedServer('files')]);
    store.getState().toolChangeApproving(fetchKey);
    expect(store.getState().servers.approving).toEqual(fetchKey);
    store.getState().toolChangeApproved(fetchKey, hash('b'), '2026-01-03T00:00:00.000Z');
    const web = store.getState().servers.servers[0]!;
    expect(web.pins[0]).toMatchObject({ tool: 'fetch', approvedHash: hash('b'), approvedAt: '2026-01-03T00:00:00.000Z', pendingHash: null, pendingSince: null });
    expect(web.pins[1]).toEqual(pin('stable'));
    expect(store.getState().servers.approving).toBeNull();
  });

  it('keeps a failed approval while the change is still pending, and drops it once it is not', () => {
    const store = createCockpitStore();
    store.getState().serversLoaded([changed()]);
    store.getState().toolChangeApproving(fetchKey);
    store.getState().toolChangeApproveFailed(fetchKey, 'no pending change (E_INVALID_ARGS)');
    expect(store.getState().servers).toMatchObject({ approving: null, approveError: { ...fetchKey, message: 'no pending change (E_INVALID_ARGS)' } });
    store.getState().serversLoaded([changed()]);
    expect(store.getState().servers.approveError).not.toBeNull();
    store.getState().serversLoaded([governedServer('web', { pins: [pin('fetch')] })]);
    expect(store.getState().servers.approveError).toBeNull();
  });

  it('names the audit events that can change the page', () => {
    expect(['mcp.proxy_started', 'mcp.tool_pinned', 'mcp.tool_changed', 'mcp.tool_change_approved', 'aip.decision'].every(affectsServers)).toBe(true);
    expect(['runtime.started', 'approvals.approved', 'aip.dlp', 'audit.checkpoint'].some(affectsServers)).toBe(false);
    // The categories cover what the name prefix `mcp.` used to: every MCP event of the catalogue.
    expect(Object.keys(auditEvents).filter((name) => name.startsWith('mcp.')).every(affectsServers)).toBe(true);
  });
});
