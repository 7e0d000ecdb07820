import { describe, expect, it } from 'vitest';
import { formatArgsDisplay, revokeName, shortFingerprint, standingName } from './policies-format.js';

describe('shortFingerprint', () => {
  it('keeps the algorithm and the first 12 hex characters', () => {
    expect(shortFingerprint('ed25519:9f2c1be07a51d4c3e8f0aa11bb22cc33')).toBe('ed25519:9f2c1be07a51');
  });

  it('shortens a bare fingerprint and shows an em dash for none', () => {
    expect(shortFingerprint('9f2c1be07a51d4c3e8f0')).toBe('9f2c1be07a51');
    expect(shortFingerprint('')).toBe('—');
  });
});

describe('formatArgsDisplay', () => {
  it('pretty-prints the stored JSON text', () => {
    expect(formatArgsDisplay('{"path":"/tmp/a","n":1}')).toBe('{\n  "path": "/tmp/a",\n  "n": 1\n}');
    expect(formatArgsDisplay('null')).toBe('null');
  });

  it('shows text that is not JSON verbatim', () => {
    expect(formatArgsDisplay('{not json')).toBe('{not json');
    expect(formatArgsDisplay('')).toBe('');
  });
});

describe('names', () => {
  it('names an item and its Revoke button by tool and server', () => {
    expect(standingName({ tool: 'delete_file', server: 'files' })).toBe('delete_file on files');
    expect(revokeName({ tool: 'delete_file', server: 'files' })).toBe('Revoke always-allow for delete_file on files');
  });
});
