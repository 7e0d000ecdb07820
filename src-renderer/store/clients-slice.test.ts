import { describe, expect, it } from 'vitest';
import { agentClient, wrapPlan } from '../testing/client-fixtures.js';
import { affectsClients } from './clients-slice.js';
import { createCockpitStore } from './cockpit-store.js';
import { auditEvents } from '../../src-shared/audit/events.js';

describe('clients slice', () => {
  it('loads, keeps the last list through a failed reload, and reports the failure', () => {
    const store = createCockpitStore();
    expect(store.getState().clients).toMatchObject({ status: 'idle', clients: [], wrap: null });
    store.getState().clientsLoading();
    store.getState().clientsLoaded([agentClient()]);
    store.getState().clientsLoading();
    expect(store.getState().clients.status).toBe('ready');
    store.getState().clientsFailed('gone');
    expect(store.getState().clients).toMatchObject({ status: 'ready', error: 'gone', clients: [agentClient()] });
  });

  it('walks one wrap flow: editing, previewing, previewed, applying, applied', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    s().wrapOpened('claude-desktop');
    expect(s().clients.wrap).toEqual({ client: 'claude-desktop', phase: 'editing', requestedPolicy: null, plan: null, error: null });
    s().wrapPreviewing('claude-desktop', '/p.yaml');
    expect(s().clients.wrap).toMatchObject({ phase: 'previewing', requestedPolicy: '/p.yaml' });
    s().wrapPreviewed('claude-desktop', wrapPlan());
    expect(s().clients.wrap).toMatchObject({ phase: 'previewed', plan: wrapPlan() });
    s().wrapApplying('claude-desktop');
    s().wrapFailed('claude-desktop', 'changed since the preview');
    // A failed apply keeps the preview it was about.
    expect(s().clients.wrap).toMatchObject({ phase: 'previewed', plan: wrapPlan(), error: 'changed since the preview' });
    s().wrapApplying('claude-desktop');
    s().wrapApplied('claude-desktop', 'Wrapped 2 servers.');
    expect(s().clients.wrap).toBeNull();
    expect(s().clients.outcome).toEqual({ client: 'claude-desktop', message: 'Wrapped 2 servers.' });
  });

  it('sends a failed preview back to editing, and ignores answers for another or a closed flow', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    s().wrapOpened('claude-desktop');
    s().wrapPreviewing('claude-desktop', 'rel.yaml');
    s().wrapFailed('claude-desktop', 'relative path');
    expect(s().clients.wrap).toMatchObject({ phase: 'editing', error: 'relative path', plan: null });
    s().wrapPreviewed('cursor', wrapPlan());
    expect(s().clients.wrap?.plan).toBeNull();
    s().wrapClosed();
    s().wrapPreviewed('claude-desktop', wrapPlan());
    expect(s().clients.wrap).toBeNull();
  });

  it('tracks one unwrap at a time with its error or outcome', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    s().unwrapStarted('claude-desktop');
    expect(s().clients.unwrapping).toBe('claude-desktop');
    s().unwrapFailed('claude-desktop', 'changed');
    expect(s().clients).toMatchObject({ unwrapping: null, unwrapError: { client: 'claude-desktop', message: 'changed' } });
    s().unwrapStarted('claude-desktop');
    expect(s().clients.unwrapError).toBeNull();
    s().unwrapDone('claude-desktop', 'Restored.');
    expect(s().clients).toMatchObject({ unwrapping: null, outcome: { client: 'claude-desktop', message: 'Restored.' } });
  });

  it('is refreshed by wrap and unwrap events only', () => {
    expect(['mcp.client_wrapped', 'mcp.client_unwrapped', 'mcp.client_wrap_failed'].every(affectsClients)).toBe(true);
    expect(['mcp.proxy_started', 'aip.decision', 'runtime.started'].some(affectsClients)).toBe(false);
    expect(Object.keys(auditEvents).filter((name) => name.startsWith('mcp.client_')).every(affectsClients)).toBe(true);
  });
});
