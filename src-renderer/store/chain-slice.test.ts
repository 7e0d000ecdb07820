import { describe, expect, it } from 'vitest';
import { createCockpitStore } from './cockpit-store.js';

const last = { valid: true, entries: 20, checkpoints: 1, firstInvalid: null, mode: 'new' as const, fromIndex: 10, checked: 10, verifiedUpTo: null, verifiedAt: '2026-01-01T00:00:00Z' };
const running = { mode: 'full' as const, fromIndex: 0, checked: 5, total: 20, startedAt: '2026-01-01T00:01:00Z' };

describe('chain slice', () => {
  it('a background run keeps the verdict shown and reports progress', () => {
    const store = createCockpitStore();
    store.getState().chainVerified(last);
    store.getState().chainVerifying(true);
    expect(store.getState().chain).toMatchObject({ status: 'intact', progress: { mode: 'new', checked: 0, total: 0 }, asked: false });
    store.getState().chainProgress({ ...running, mode: 'new' });
    expect(store.getState().chain.progress).toEqual({ mode: 'new', checked: 5, total: 20 });
  });

  it('without a verdict, a background run says "verifying" until the status brings the last one', () => {
    const store = createCockpitStore();
    store.getState().chainVerifying(true);
    expect(store.getState().chain.status).toBe('verifying');
    store.getState().chainStatus({ last, running, error: null });
    expect(store.getState().chain).toMatchObject({ status: 'intact', entries: 20, mode: 'new', progress: { checked: 5 } });
  });

  it("a run the person asked for stays 'verifying' until its own answer, whatever the status says meanwhile", () => {
    const store = createCockpitStore();
    store.getState().chainVerified(last);
    store.getState().chainVerifying();
    store.getState().chainStatus({ last, running, error: null });
    expect(store.getState().chain).toMatchObject({ status: 'verifying', asked: true, progress: { checked: 5 } });
    store.getState().chainVerified({ ...last, valid: false, firstInvalid: { index: 3, id: null, reason: 'edited' } });
    expect(store.getState().chain).toMatchObject({ status: 'broken', firstInvalid: { index: 3 }, progress: null, asked: false });
  });

  it('a status with no run and no verdict ends a "verifying" that nothing backs', () => {
    const store = createCockpitStore();
    store.getState().chainVerifying();
    store.getState().chainStatus({ last: null, running: null, error: { code: 'E_KEY_MISSING', message: 'unlock the keyring' } });
    expect(store.getState().chain).toMatchObject({ status: 'unknown', progress: null });
  });
});
