import { describe, expect, it } from 'vitest';
import { auditEntry, auditRange } from '../testing/audit-fixtures.js';
import { selectNewSinceVerification } from './chain-slice.js';
import { createCockpitStore } from './cockpit-store.js';

const indexes = (entries: readonly { index: number }[]) => entries.map((entry) => entry.index);

describe('cockpit store: audit log', () => {
  it('loads a first page and knows whether older entries remain', () => {
    const store = createCockpitStore();
    store.getState().auditLoading();
    expect(store.getState().audit.status).toBe('loading');
    store.getState().auditFirstPageLoaded({ entries: auditRange(500, 999), total: 1000 });
    const audit = store.getState().audit;
    expect(audit.status).toBe('ready');
    expect(audit.total).toBe(1000);
    expect(audit.entries[0]!.index).toBe(999);
    expect(audit.hasMore).toBe(true);
  });

  it('appends older pages until the start of the chain', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(5, 9), total: 10 });
    store.getState().auditOlderLoading();
    expect(store.getState().audit.loadingMore).toBe(true);
    store.getState().auditOlderPageLoaded({ entries: auditRange(0, 4), total: 10 });
    const audit = store.getState().audit;
    expect(indexes(audit.entries)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(audit.loadingMore).toBe(false);
    expect(audit.hasMore).toBe(false);
  });

  it('stops asking for more when an older page comes back empty', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(5, 9), total: 20 });
    store.getState().auditOlderPageLoaded({ entries: [], total: 20 });
    expect(store.getState().audit.hasMore).toBe(false);
  });

  it('prepends live entries, counts them, and ignores duplicates', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(0, 9), total: 10 });
    store.getState().auditAppended(auditEntry(10));
    store.getState().auditAppended(auditEntry(10));
    store.getState().auditAppended(auditEntry(4));
    const audit = store.getState().audit;
    expect(indexes(audit.entries).slice(0, 3)).toEqual([10, 9, 8]);
    expect(audit.entries).toHaveLength(11);
    expect(audit.total).toBe(11);
  });

  it('does not re-render subscribers for a duplicate live entry', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(0, 3), total: 4 });
    const before = store.getState().audit;
    store.getState().auditAppended(auditEntry(2));
    expect(store.getState().audit).toBe(before);
  });

  it('keeps live entries that arrived before the first page', () => {
    const store = createCockpitStore();
    store.getState().auditLoading();
    store.getState().auditAppended(auditEntry(10));
    store.getState().auditFirstPageLoaded({ entries: auditRange(0, 9), total: 10 });
    expect(indexes(store.getState().audit.entries).slice(0, 2)).toEqual([10, 9]);
    expect(store.getState().audit.total).toBe(11);
  });

  it('stops paging after an older page fails, until the next first page', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(5, 9), total: 10 });
    store.getState().auditOlderLoading();
    store.getState().auditOlderFailed('dropped');
    expect(store.getState().audit).toMatchObject({ loadingMore: false, hasMore: false, error: 'dropped' });
    store.getState().auditFirstPageLoaded({ entries: auditRange(5, 9), total: 10 });
    expect(store.getState().audit).toMatchObject({ hasMore: true, error: null });
  });

  it('records a load failure', () => {
    const store = createCockpitStore();
    store.getState().auditLoading();
    store.getState().auditFailed('runtime unavailable');
    expect(store.getState().audit).toMatchObject({ status: 'error', error: 'runtime unavailable' });
  });
});

describe('cockpit store: chain', () => {
  it('moves from unknown through verifying to intact or broken', () => {
    const store = createCockpitStore();
    expect(store.getState().chain.status).toBe('unknown');
    store.getState().chainVerifying();
    expect(store.getState().chain.status).toBe('verifying');
    store.getState().chainVerified({ valid: true, entries: 10, checkpoints: 1, firstInvalid: null, verifiedAt: '2026-01-01T00:00:00Z' });
    expect(store.getState().chain).toMatchObject({ status: 'intact', entries: 10, verifiedAt: '2026-01-01T00:00:00Z' });
    store.getState().chainVerified({
      valid: false,
      entries: 10,
      checkpoints: 1,
      firstInvalid: { index: 4, id: 'entry-4', reason: 'hash mismatch' },
      verifiedAt: '2026-01-01T00:01:00Z',
    });
    expect(store.getState().chain).toMatchObject({ status: 'broken', firstInvalid: { index: 4, reason: 'hash mismatch' } });
  });

  it('counts entries appended since the last verification', () => {
    const store = createCockpitStore();
    store.getState().auditFirstPageLoaded({ entries: auditRange(0, 9), total: 10 });
    expect(selectNewSinceVerification(store.getState())).toBeNull();
    store.getState().chainVerified({ valid: true, entries: 10, checkpoints: 0, firstInvalid: null, verifiedAt: 'now' });
    expect(selectNewSinceVerification(store.getState())).toBe(0);
    store.getState().auditAppended(auditEntry(10));
    store.getState().auditAppended(auditEntry(11));
    expect(selectNewSinceVerification(store.getState())).toBe(2);
  });
});

describe('cockpit store: connection, runtime and navigation', () => {
  it('starts from the given connection state and route', () => {
    const store = createCockpitStore({ connection: 'no-token', route: 'activity' });
    expect(store.getState().connection.state).toBe('no-token');
    expect(store.getState().navigation.route).toBe('activity');
    store.getState().setRoute('ilp');
    store.getState().setConnection('connected');
    expect(store.getState().navigation.route).toBe('ilp');
    expect(store.getState().connection.state).toBe('connected');
  });

  it('keeps the last runtime info when a refresh fails', () => {
    const store = createCockpitStore();
    const info = { version: '1', mode: 'headless' as const, home: '/h', ownerFingerprint: 'fp', startedAt: 't', pid: 1 };
    store.getState().runtimeLoaded(info);
    store.getState().runtimeFailed('gone');
    expect(store.getState().runtime).toEqual({ info, error: 'gone' });
  });
});
