import { describe, expect, it } from 'vitest';
import { createFakeElectron, memoryLogger } from './testing/fake-electron.js';
import { createCockpitWindow } from './window.js';

function openWindow(hideOnClose = () => true) {
  const fake = createFakeElectron();
  const logger = memoryLogger();
  createCockpitWindow({
    BrowserWindow: fake.electron.BrowserWindow,
    shell: fake.electron.shell,
    preloadPath: '/opt/silas/out/preload/index.cjs',
    iconPath: '/opt/silas/resources/icons/app.png',
    hideOnClose,
    logger,
  });
  const window = fake.windows[0]!;
  return { fake, window, logger };
}

describe('cockpit window', () => {
  it('uses exactly the locked-down webPreferences', () => {
    const { window } = openWindow();
    expect(window.options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      preload: '/opt/silas/out/preload/index.cjs',
    });
  });

  it('loads the cockpit from app:// and shows itself once painted', () => {
    const { window } = openWindow();
    expect(window.loadedUrl).toBe('app://cockpit/index.html');
    expect(window.visible).toBe(false);
    window.emit('ready-to-show');
    expect(window.visible).toBe(true);
  });

  it('prevents navigation and redirects away from app://cockpit/ and allows them inside it', () => {
    const { window } = openWindow();
    const contents = window.webContents;
    for (const url of ['https://evil.example/', 'http://127.0.0.1:8420/', 'file:///etc/passwd', 'app://other/', 'javascript:alert(1)']) {
      expect(contents.fire('will-navigate', url)).toBe(true);
      expect(contents.fire('will-redirect', url)).toBe(true);
    }
    expect(contents.fire('will-navigate', 'app://cockpit/index.html#/review')).toBe(false);
    expect(contents.fire('will-redirect', 'app://cockpit/index.html')).toBe(false);
  });

  it('denies every window.open and sends only https links to the OS browser', () => {
    const { window, fake } = openWindow();
    const handler = window.webContents.windowOpenHandler!;
    expect(handler({ url: 'https://docs.example/aip' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'http://plain.example/' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'app://cockpit/index.html' })).toEqual({ action: 'deny' });
    expect(fake.opened).toEqual(['https://docs.example/aip']);
  });

  it('refuses to attach a <webview>', () => {
    const { window } = openWindow();
    expect(window.webContents.fire('will-attach-webview')).toBe(true);
  });

  it('hides instead of closing while the app lives in the tray, and closes when quitting', () => {
    let hide = true;
    const { window } = openWindow(() => hide);
    window.show();
    window.close();
    expect(window.isDestroyed()).toBe(false);
    expect(window.visible).toBe(false);
    hide = false;
    window.close();
    expect(window.isDestroyed()).toBe(true);
  });
});
