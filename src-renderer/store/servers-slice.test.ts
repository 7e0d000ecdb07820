import { describe, expect, it } from 'vitest';
import { governedServer, hash, pin } from '../testing/server-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';
import { affectsServers } from './servers-slice.js';
import { auditEvents } from '../../src-shared/audit/events.js';

const changed = () => governedServer('web', { pins: [pin('fetch', { pendingHash: hash('b'), pendingSince: '2026-01-02T00:00:00.000Z', decisionId: 'card-7' }), pin('stable')] });

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

  it('marks an accepted change as the trusted definition at once, found by its Review card', () => {
    const store = createCockpitStore();
    store.getState().serversLoaded([changed(), governedServer('files')]);
    const files = store.getState().servers.servers[1];
    store.getState().toolChangeAccepted('card-7', '2026-01-03T00:00:00.000Z');
    const web = store.getState().servers.servers[0]!;
    expect(web.pins[0]).toEqual({ ...pin('fetch', { approvedHash: hash('b'), approvedAt: '2026-01-03T00:00:00.000Z' }), decisionId: null });
    expect(web.pins[1]).toEqual(pin('stable'));
    expect(store.getState().servers.servers[1]).toEqual(files);
  });

  it('leaves every pin alone for a card it does not hold', () => {
    const store = createCockpitStore();
    store.getState().serversLoaded([changed()]);
    store.getState().toolChangeAccepted('card-8', '2026-01-03T00:00:00.000Z');
    expect(store.getState().servers.servers).toEqual([changed()]);
  });

  it('names the audit events that can change the page', () => {
    expect(['mcp.proxy_started', 'mcp.tool_pinned', 'mcp.tool_changed', 'mcp.tool_change_approved', 'aip.decision'].every(affectsServers)).toBe(true);
    expect(['runtime.started', 'approvals.approved', 'aip.dlp', 'audit.checkpoint'].some(affectsServers)).toBe(false);
    // The categories cover what the name prefix `mcp.` used to: every MCP event of the catalogue.
    expect(Object.keys(auditEvents).filter((name) => name.startsWith('mcp.')).every(affectsServers)).toBe(true);
  });
});
