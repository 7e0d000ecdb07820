import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COCKPIT_CSP } from './csp.js';
import { cockpitRelativePath, createCockpitHandler, mimeTypeFor, registerAppScheme, resolveCockpitFile, serveCockpit } from './protocol.js';
import { createFakeElectron, memoryLogger } from './testing/fake-electron.js';

let base: string;
let root: string;
let secret: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'silas-protocol-'));
  root = join(base, 'renderer');
  secret = join(base, 'secret.txt');
  mkdirSync(join(root, 'assets'), { recursive: true });
  mkdirSync(join(base, 'outside'));
  writeFileSync(secret, 'TOP SECRET');
  writeFileSync(join(base, 'outside', 'file.txt'), 'outside');
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>cockpit</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'export const x = 1;');
  writeFileSync(join(root, 'assets', 'app.css'), 'body{}');
  writeFileSync(join(root, 'assets', 'logo.svg'), '<svg/>');
  writeFileSync(join(root, 'assets', 'font.woff2'), 'w');
  writeFileSync(join(root, 'assets', 'data.bin'), 'b');
  symlinkSync(secret, join(root, 'leak.txt'));
  symlinkSync(join(base, 'outside'), join(root, 'outdir'));
  symlinkSync(join(root, 'assets', 'app.js'), join(root, 'alias.js'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

function get(url: string, method = 'GET'): Promise<Response> {
  return createCockpitHandler(root, memoryLogger())({ url, method });
}

describe('cockpitRelativePath', () => {
  it('maps the root to index.html and keeps plain paths', () => {
    expect(cockpitRelativePath('app://cockpit')).toBe('index.html');
    expect(cockpitRelativePath('app://cockpit/')).toBe('index.html');
    expect(cockpitRelativePath('app://cockpit/?x=1')).toBe('index.html');
    expect(cockpitRelativePath('app://cockpit/assets/app.js?v=2#top')).toBe('assets/app.js');
    expect(cockpitRelativePath('app://cockpit/assets/my%20file.js')).toBe('assets/my file.js');
  });

  it.each([
    'app://cockpit/../secret.txt',
    'app://cockpit/assets/../../secret.txt',
    'app://cockpit/%2e%2e/secret.txt',
    'app://cockpit/%2E%2E/secret.txt',
    'app://cockpit/.%2e/secret.txt',
    'app://cockpit/..%2fsecret.txt',
    'app://cockpit/assets/..%2F..%2Fsecret.txt',
    'app://cockpit/\\..\\secret.txt',
    'app://cockpit/%5c..%5csecret.txt',
    'app://cockpit/./index.html',
    'app://cockpit//etc/passwd',
    'app://cockpit/%2Fetc%2Fpasswd',
    'app://cockpit/C:/Windows/win.ini',
    'app://cockpit/C%3A%5CWindows%5Cwin.ini',
    'app://cockpit/index.html%00.js',
    'app://cockpit/%E0%A4%A',
    'app://cockpit/assets/',
    'app://other/index.html',
    'app://cockpit:99/index.html',
    'file:///etc/passwd',
  ])('refuses %s', (url) => {
    expect(cockpitRelativePath(url)).toBeNull();
  });
});

describe('resolveCockpitFile', () => {
  it('resolves a real file and a symlink that stays inside the root', async () => {
    expect(await resolveCockpitFile(root, 'index.html')).toMatch(/renderer[/\\]index\.html$/);
    expect(await resolveCockpitFile(root, 'alias.js')).toMatch(/assets[/\\]app\.js$/);
  });

  it('refuses symlinks leaving the root, directories, missing files and a missing root', async () => {
    expect(await resolveCockpitFile(root, 'leak.txt')).toBeNull();
    expect(await resolveCockpitFile(root, 'outdir/file.txt')).toBeNull();
    expect(await resolveCockpitFile(root, 'assets')).toBeNull();
    expect(await resolveCockpitFile(root, 'nope.js')).toBeNull();
    expect(await resolveCockpitFile(root, '../secret.txt')).toBeNull();
    expect(await resolveCockpitFile(root, secret)).toBeNull();
    expect(await resolveCockpitFile(join(base, 'missing'), 'index.html')).toBeNull();
  });
});

describe('cockpit protocol handler', () => {
  it('serves index.html for / with the CSP and the right MIME type', async () => {
    const response = await get('app://cockpit/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(COCKPIT_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('<title>cockpit</title>');
  });

  it.each([
    ['assets/app.js', 'text/javascript; charset=utf-8'],
    ['assets/app.css', 'text/css; charset=utf-8'],
    ['assets/logo.svg', 'image/svg+xml'],
    ['assets/font.woff2', 'font/woff2'],
    ['assets/data.bin', 'application/octet-stream'],
  ])('serves %s as %s', async (path, mime) => {
    const response = await get(`app://cockpit/${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(mime);
    expect(response.headers.get('content-security-policy')).toBe(COCKPIT_CSP);
  });

  it.each([
    'app://cockpit/../secret.txt',
    'app://cockpit/%2e%2e/secret.txt',
    'app://cockpit/..%2fsecret.txt',
    'app://cockpit/\\..\\secret.txt',
    'app://cockpit/%5C..%5Csecret.txt',
    'app://cockpit//SECRET_ABSOLUTE',
    'app://cockpit/SECRET_ENCODED_ABSOLUTE',
    'app://cockpit/leak.txt',
    'app://cockpit/outdir/file.txt',
    'app://cockpit/assets',
    'app://cockpit/missing.js',
    'app://evil/index.html',
  ])('answers 404 with the CSP for %s', async (template) => {
    const url = template.replace('SECRET_ABSOLUTE', secret.replace(/^\//, '')).replace('SECRET_ENCODED_ABSOLUTE', encodeURIComponent(secret));
    const response = await get(url);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toBe(COCKPIT_CSP);
    expect(await response.text()).not.toContain('TOP SECRET');
  });

  it('also refuses traversal after the URL parser normalised it (a real Request)', async () => {
    const request = new Request('app://cockpit/%2e%2e/secret.txt');
    const response = await createCockpitHandler(root, memoryLogger())(request);
    expect(response.status).toBe(404);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('app://cockpit/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get('app://cockpit/index.html', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('content-security-policy')).toBe(COCKPIT_CSP);
  });

  it('tells the developer once when the cockpit is not built', async () => {
    const logger = memoryLogger();
    const handler = createCockpitHandler(join(base, 'not-built'), logger);
    expect((await handler({ url: 'app://cockpit/', method: 'GET' })).status).toBe(404);
    await handler({ url: 'app://cockpit/', method: 'GET' });
    expect(logger.lines.filter((line) => line.message.includes('npm run build:desktop'))).toHaveLength(1);
  });
});

describe('scheme registration', () => {
  it('registers app:// as standard, secure and fetchable, without CORS', () => {
    const { fakes } = createFakeElectron();
    registerAppScheme(fakes.protocol);
    expect(fakes.protocol.privileged).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  });

  it('serves the renderer directory on the app scheme', async () => {
    const { fakes } = createFakeElectron();
    serveCockpit(fakes.protocol, root, memoryLogger());
    const handler = fakes.protocol.handlers.get('app');
    expect(handler).toBeDefined();
    const response = await handler!(new Request('app://cockpit/index.html'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('knows the MIME types module scripts need', () => {
    expect(mimeTypeFor('a.MJS')).toBe('text/javascript; charset=utf-8');
    expect(mimeTypeFor('x.json')).toBe('application/json; charset=utf-8');
    expect(mimeTypeFor('noext')).toBe('application/octet-stream');
  });
});
