import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitIndex, mimeType, resolveStaticFile } from './static-files.js';

let base: string;
let root: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'silas-static-')));
  root = join(base, 'dist');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>cockpit</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'a b.css'), 'body{}');
  // Things outside the root that an attacker would like to read.
  writeFileSync(join(base, 'secret.txt'), 'TOP SECRET');
  mkdirSync(join(base, 'dist-evil'));
  writeFileSync(join(base, 'dist-evil', 'x.js'), 'evil');
  symlinkSync(join(base, 'secret.txt'), join(root, 'leak.txt'));
  symlinkSync(base, join(root, 'up'));
  // A symlink that stays inside the root is harmless.
  symlinkSync(join(root, 'assets', 'app.js'), join(root, 'alias.js'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('resolveStaticFile', () => {
  it('maps / (and an empty path) to index.html', () => {
    expect(resolveStaticFile(root, '/')).toBe(join(root, 'index.html'));
    expect(resolveStaticFile(root, '')).toBe(join(root, 'index.html'));
    expect(resolveStaticFile(root, '/?v=1')).toBe(join(root, 'index.html'));
  });

  it('resolves a real file, ignoring the query string and decoding once', () => {
    expect(resolveStaticFile(root, '/assets/app.js')).toBe(join(root, 'assets', 'app.js'));
    expect(resolveStaticFile(root, '/assets/app.js?cache=bust')).toBe(join(root, 'assets', 'app.js'));
    expect(resolveStaticFile(root, '/assets/a%20b.css')).toBe(join(root, 'assets', 'a b.css'));
  });

  it('refuses any raw `..` segment, even one that would stay inside the root (browsers never send one)', () => {
    expect(resolveStaticFile(root, '/assets/../index.html')).toBeNull();
  });

  it('follows a symlink that stays inside the root', () => {
    expect(resolveStaticFile(root, '/alias.js')).toBe(join(root, 'assets', 'app.js'));
  });

  it('judges by the real path: a detour out through a symlink and back in lands on the in-root file', () => {
    expect(resolveStaticFile(root, '/up/dist/index.html')).toBe(join(root, 'index.html'));
  });

  it.each([
    '/../secret.txt',
    '/../../../../etc/passwd',
    '/../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/%2e%2e/secret.txt',
    '/..%2f..%2fetc/passwd',
    '/..%2fsecret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/assets/../../secret.txt',
    '/../dist-evil/x.js',
    '/..\\secret.txt',
    '/..%5csecret.txt',
    '/assets%5c..%5c..%5csecret.txt',
    '/index.html%00.png',
    '/index.html\0',
    '/%00',
    '/leak.txt',
    '/up/secret.txt',
    '//etc/passwd',
    '/etc/passwd',
  ])('refuses %j', (path) => {
    expect(resolveStaticFile(root, path)).toBeNull();
  });

  it('refuses a backslash even when a file of that literal name exists (Windows separator)', () => {
    if (process.platform === 'win32') return;
    writeFileSync(join(root, 'back\\slash.txt'), 'x');
    expect(resolveStaticFile(root, '/back%5cslash.txt')).toBeNull();
    expect(resolveStaticFile(root, '/back\\slash.txt')).toBeNull();
  });

  it('does not decode twice (%252e%252e stays a literal name)', () => {
    expect(resolveStaticFile(root, '/%252e%252e/secret.txt')).toBeNull();
  });

  it('refuses malformed percent-encoding instead of throwing', () => {
    expect(() => resolveStaticFile(root, '/%E0%A4%A')).not.toThrow();
    expect(resolveStaticFile(root, '/%E0%A4%A')).toBeNull();
    expect(resolveStaticFile(root, '/%')).toBeNull();
  });

  it('refuses directories, the root itself and missing files', () => {
    expect(resolveStaticFile(root, '/assets')).toBeNull();
    expect(resolveStaticFile(root, '/assets/')).toBeNull();
    expect(resolveStaticFile(root, '/.')).toBeNull();
    expect(resolveStaticFile(root, '/nope.js')).toBeNull();
  });

  it('refuses everything when the root does not exist', () => {
    expect(resolveStaticFile(join(base, 'missing'), '/')).toBeNull();
  });

  it('works when the root itself is reached through a symlink', () => {
    const linkRoot = join(base, 'linked-dist');
    symlinkSync(root, linkRoot);
    expect(resolveStaticFile(linkRoot, '/assets/app.js')).toBe(join(root, 'assets', 'app.js'));
    expect(resolveStaticFile(linkRoot, '/../secret.txt')).toBeNull();
  });
});

describe('mimeType and cockpitIndex', () => {
  it('maps known extensions and falls back to octet-stream', () => {
    expect(mimeType('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(mimeType('/x/APP.JS')).toBe('text/javascript; charset=utf-8');
    expect(mimeType('/x/style.css')).toBe('text/css; charset=utf-8');
    expect(mimeType('/x/evil.exe')).toBe('application/octet-stream');
    expect(mimeType('/x/noext')).toBe('application/octet-stream');
  });

  it('points at index.html in the root', () => {
    expect(cockpitIndex('/srv/cockpit')).toBe(join('/srv/cockpit', 'index.html'));
  });
});
