import { beforeEach, describe, expect, it, vi } from 'vitest';
import { calls } from '../../src-shared/contract/calls.js';

// `electron` is not installed on build machines; the preload entry is checked against a stand-in.
const exposed = vi.hoisted(() => ({ key: '', api: null as Record<string, unknown> | null, count: 0 }));
const ipcRenderer = vi.hoisted(() => ({ invoke: vi.fn(async () => ({ ok: true, value: null })), on: vi.fn(), removeListener: vi.fn() }));

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld(key: string, api: Record<string, unknown>) {
      exposed.key = key;
      exposed.api = api;
      exposed.count += 1;
    },
  },
  ipcRenderer,
}));

describe('preload entry', () => {
  beforeEach(async () => {
    await import('./index.js');
  });

  it('exposes the bridge once as window.silas, without ipcRenderer', () => {
    expect(exposed.count).toBe(1);
    expect(exposed.key).toBe('silas');
    const api = exposed.api!;
    expect(Object.keys(api).sort()).toEqual([...Object.keys(calls), 'onEvent'].sort());
    for (const value of Object.values(api)) {
      expect(typeof value).toBe('function');
      expect(value).not.toBe(ipcRenderer);
      expect(value).not.toBe(ipcRenderer.invoke);
    }
  });

  it('routes calls through ipcRenderer.invoke', async () => {
    await (exposed.api!['runtime.info'] as (args: unknown) => Promise<unknown>)({});
    expect(ipcRenderer.invoke).toHaveBeenCalledWith('silas:call', 'runtime.info', {});
  });
});
