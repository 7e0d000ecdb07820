import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SilasBridge } from '../../src-shared/contract/index.js';
import { chooseTransport, streamScopeStorage } from './boot.js';
import { IpcTransport } from './ipc-transport.js';
import { TOKEN_STORAGE_KEY } from './token.js';
import { CockpitSocketClient } from './socket-client.js';

class SilentWebSocket {
  static urls: string[] = [];
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  constructor(url: string) {
    SilentWebSocket.urls.push(url);
  }
  send(): void {}
  close(): void {}
}

describe('chooseTransport', () => {
  beforeEach(() => {
    window.sessionStorage.clear();
    window.history.replaceState(null, '', '/');
    SilentWebSocket.urls = [];
    vi.stubGlobal('WebSocket', SilentWebSocket);
  });
  afterEach(() => {
    delete window.silas;
    vi.unstubAllGlobals();
  });

  it('uses IPC when the desktop bridge exists', () => {
    window.silas = { onEvent: () => () => {} } as unknown as SilasBridge;
    const transport = chooseTransport(window);
    expect(transport).toBeInstanceOf(IpcTransport);
    expect(transport.state).toBe('connected');
  });

  it('uses a WebSocket to /ws when a token is in the fragment, and removes it from the address bar', () => {
    window.history.replaceState(null, '', '/#token=abc');
    const transport = chooseTransport(window);
    expect(transport).toBeInstanceOf(CockpitSocketClient);
    expect(SilentWebSocket.urls).toEqual([`ws://${window.location.host}/ws`]);
    expect(window.location.href).not.toContain('abc');
    expect(window.location.hash).toBe('#/stream');
    transport.close();
  });

  it('reuses the token kept for this tab', () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'kept');
    const transport = chooseTransport(window);
    expect(transport.state).toBe('connecting');
    transport.close();
  });

  it('reports no-token and answers calls with the reason when there is no token', async () => {
    const transport = chooseTransport(window);
    expect(transport.state).toBe('no-token');
    await expect(transport.call('runtime.info', {})).resolves.toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('silas start') },
    });
    expect(SilentWebSocket.urls).toEqual([]);
  });
});

describe('streamScopeStorage', () => {
  it('keeps the scope in this tab\'s sessionStorage, never localStorage', () => {
    expect(streamScopeStorage(window)).toBe(window.sessionStorage);
  });

  it('keeps nothing when storage is disabled', () => {
    const disabled = Object.defineProperty({}, 'sessionStorage', {
      get: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    }) as Window;
    expect(streamScopeStorage(disabled)).toBeNull();
  });
});
