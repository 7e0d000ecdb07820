import { describe, expect, it, vi } from 'vitest';

// main.ts only wires the real modules into runDesktop; Electron itself is not installed here.
const electronModules = vi.hoisted(() => {
  const names = ['app', 'BrowserWindow', 'dialog', 'ipcMain', 'Menu', 'nativeImage', 'Notification', 'protocol', 'session', 'shell', 'Tray'];
  return Object.fromEntries(names.map((name) => [name, { fakeOf: name }]));
});
const runDesktop = vi.hoisted(() => vi.fn());
const buildRuntime = vi.hoisted(() => vi.fn());

vi.mock('electron', () => electronModules);
vi.mock('../app/runtime.js', () => ({ buildRuntime }));
vi.mock('./desktop.js', () => ({ runDesktop }));

describe('desktop entry (main.ts)', () => {
  it('runs the desktop shell with the real Electron modules, argv, signals and buildRuntime', async () => {
    await import('./main.js');
    expect(runDesktop).toHaveBeenCalledTimes(1);
    const deps = runDesktop.mock.calls[0]![0];
    expect(deps.electron).toEqual(electronModules);
    expect(deps.buildRuntime).toBe(buildRuntime);
    expect(deps.argv).toBe(process.argv);
    expect(deps.signals).toBe(process);
    expect(deps.platform).toBe(process.platform);
    expect(deps.resolveHome('/data/x')).toBe('/data/x');
  });
});
