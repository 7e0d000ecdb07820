import { describe, expect, it } from 'vitest';
import { isCockpitUrl, isHttpsUrl } from './origin.js';

describe('isCockpitUrl', () => {
  it.each(['app://cockpit/', 'app://cockpit/index.html', 'app://cockpit/assets/a.js?x=1#y', 'app://cockpit'])('accepts %s', (url) => {
    expect(isCockpitUrl(url)).toBe(true);
  });

  it.each([
    '',
    'not a url',
    'https://cockpit/',
    'file:///index.html',
    'app://evil/',
    'app://cockpit.evil.com/',
    'app://cockpit:8080/',
    'app://user@cockpit/',
    'app://cockpit@evil/',
    'app:cockpit/',
    'app:///cockpit/',
    'http://localhost:5173/',
    'devtools://devtools/',
  ])('rejects %j', (url) => {
    expect(isCockpitUrl(url)).toBe(false);
  });
});

describe('isHttpsUrl', () => {
  it('accepts https links only', () => {
    expect(isHttpsUrl('https://example.com/docs')).toBe(true);
    for (const url of ['http://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'app://cockpit/', 'mailto:a@b.c', 'garbage']) {
      expect(isHttpsUrl(url)).toBe(false);
    }
  });
});
