import { describe, expect, it } from 'vitest';
import { standingApproval } from '../testing/standing-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';
import { affectsStanding, sortStanding } from './standing-slice.js';

const ids = (items: readonly { id: string }[]) => items.map((item) => item.id);

describe('standing slice', () => {
  it('loads, keeps the last list through a failed reload, and reports the failure', () => {
    const store = createCockpitStore();
    expect(store.getState().standing).toMatchObject({ status: 'idle', items: [], error: null });
    store.getState().standingLoading();
    expect(store.getState().standing.status).toBe('loading');
    store.getState().standingFailed('runtime gone');
    expect(store.getState().standing).toMatchObject({ status: 'error', error: 'runtime gone' });
    store.getState().standingLoading();
    store.getState().standingLoaded([standingApproval(1)]);
    expect(store.getState().standing).toMatchObject({ status: 'ready', error: null });
    store.getState().standingLoading();
    expect(store.getState().standing.status).toBe('ready');
    store.getState().standingFailed('again');
    expect(store.getState().standing).toMatchObject({ status: 'ready', error: 'again' });
    expect(ids(store.getState().standing.items)).toEqual(['standing-1']);
  });

  it('sorts by server, then tool, then oldest first', () => {
    const items = [
      standingApproval(3, { server: 'web', tool: 'fetch' }),
      standingApproval(2, { tool: 'write_file' }),
      standingApproval(4),
      standingApproval(1),
    ];
    expect(ids(sortStanding(items))).toEqual(['standing-1', 'standing-4', 'standing-2', 'standing-3']);
    const store = createCockpitStore();
    store.getState().standingLoaded(items);
    expect(ids(store.getState().standing.items)).toEqual(['standing-1', 'standing-4', 'standing-2', 'standing-3']);
    expect(ids(items)).toEqual(['standing-3', 'standing-2', 'standing-4', 'standing-1']);
  });

  it('drops a revoked approval at once and clears the revocation in flight', () => {
    const store = createCockpitStore();
    store.getState().standingLoaded([standingApproval(1), standingApproval(2)]);
    store.getState().standingRevoking('standing-1');
    expect(store.getState().standing.revoking).toBe('standing-1');
    store.getState().standingRevoked('standing-1');
    expect(store.getState().standing).toMatchObject({ revoking: null, revokeError: null });
    expect(ids(store.getState().standing.items)).toEqual(['standing-2']);
  });

  it('keeps a failed revocation with its message until the next attempt', () => {
    const store = createCockpitStore();
    store.getState().standingLoaded([standingApproval(1)]);
    store.getState().standingRevoking('standing-1');
    store.getState().standingRevokeFailed('standing-1', 'database is locked (E_DB_FAILURE)');
    expect(store.getState().standing).toMatchObject({ revoking: null, revokeError: { id: 'standing-1', message: 'database is locked (E_DB_FAILURE)' } });
    store.getState().standingLoaded([standingApproval(1)]);
    expect(store.getState().standing.revokeError).not.toBeNull();
    store.getState().standingRevoking('standing-1');
    expect(store.getState().standing.revokeError).toBeNull();
  });

  it('names the audit events that change the list', () => {
    expect(['approvals.standing_created', 'approvals.standing_revoked'].every(affectsStanding)).toBe(true);
    expect(['approvals.approved', 'aip.decision', 'mcp.tool_pinned', 'approvals.standing'].some(affectsStanding)).toBe(false);
  });
});
