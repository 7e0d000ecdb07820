import { describe, expect, it } from 'vitest';
import { agentClient, clientServer } from '../../testing/client-fixtures.js';
import { canUnwrap, canWrap, messageLines, serverStatus, transportLabel, wrapSummary } from './clients-format.js';

describe('clients format', () => {
  it('says what state each server is in', () => {
    expect(serverStatus(clientServer('files', { wrapped: true, policy: '/p/files.yaml' }))).toEqual({ tone: 'wrapped', text: 'Wrapped — policy /p/files.yaml' });
    expect(serverStatus(clientServer('files', { wrapped: true, policy: null }))).toEqual({ tone: 'wrapped', text: 'Wrapped — no policy given' });
    expect(serverStatus(clientServer('files'))).toEqual({ tone: 'unwrapped', text: 'Not wrapped' });
    expect(serverStatus(clientServer('linear', { transport: 'remote', reason: 'remote servers (url) are not stdio' }))).toEqual({
      tone: 'unwrappable',
      text: 'Not wrappable: remote servers (url) are not stdio',
    });
    expect([transportLabel('stdio'), transportLabel('remote'), transportLabel('unknown')]).toEqual(['stdio', 'remote (HTTP)', 'unknown']);
  });

  it('summarises a client and offers wrap only with something to wrap, unwrap only with something wrapped', () => {
    const fresh = agentClient();
    expect(wrapSummary(fresh)).toBe('0 of 3 servers wrapped');
    expect([canWrap(fresh), canUnwrap(fresh)]).toEqual([true, false]);

    const wrapped = agentClient({
      servers: [clientServer('files', { wrapped: true, policy: '/p.yaml' }), clientServer('linear', { transport: 'remote', reason: 'remote' })],
      lastWrap: { backup: '/b', wrappedAt: '2026-03-01T09:00:00.000Z', servers: ['files'] },
    });
    expect(wrapSummary(wrapped)).toBe('1 of 2 servers wrapped');
    expect([canWrap(wrapped), canUnwrap(wrapped)]).toEqual([false, true]);

    expect(wrapSummary(agentClient({ servers: [] }))).toBe('No MCP servers');
    expect(wrapSummary(agentClient({ servers: [clientServer('one')] }))).toBe('0 of 1 server wrapped');
    const broken = agentClient({ servers: [], error: 'not valid JSON' });
    expect([canWrap(broken), canUnwrap(broken)]).toEqual([false, false]);
    expect(canWrap(agentClient({ found: false, servers: [] }))).toBe(false);
  });

  it('splits a runtime message into its headline and detail lines', () => {
    expect(messageLines('the policy /p.yaml is not valid; nothing was changed:\n  /p.yaml:7:3 spec: unknown key\n  /p.yaml:9:1 x (E)')).toEqual({
      headline: 'the policy /p.yaml is not valid; nothing was changed',
      details: ['/p.yaml:7:3 spec: unknown key', '/p.yaml:9:1 x (E)'],
    });
    expect(messageLines('plain')).toEqual({ headline: 'plain', details: [] });
  });
});
