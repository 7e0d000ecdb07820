import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../policy/load.js';
import { classifyClientMessage, notificationAllowed } from './jsonrpc.js';

describe('classifying client messages for the method gate', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(classifyClientMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).toMatchObject({ kind: 'request', id: 1, method: 'tools/call' });
    expect(classifyClientMessage({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).toMatchObject({ kind: 'notification' });
    expect(classifyClientMessage({ jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } })).toEqual({ kind: 'response', id: 'srv-1' });
    expect(classifyClientMessage({ jsonrpc: '2.0', id: 9, error: { code: -1, message: 'no' } })).toEqual({ kind: 'response', id: 9 });
  });

  it('rejects malformed messages instead of forwarding them', () => {
    for (const bad of [null, [], 'text', 42, { id: 1, method: 'x' }, { jsonrpc: '1.0', id: 1, method: 'x' }, { jsonrpc: '2.0', id: {}, method: 'x' }, { jsonrpc: '2.0', id: 1, method: '' }, { jsonrpc: '2.0', id: 1, method: 'x', result: 1 }, { jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', id: 1, result: 1, error: {} }]) {
      expect(classifyClientMessage(bad).kind, JSON.stringify(bad)).toBe('invalid');
    }
  });

  it('keys are case-sensitive: "Method" is not a method (Go decodes JSON keys case-insensitively; we do not)', () => {
    expect(classifyClientMessage({ jsonrpc: '2.0', id: 1, Method: 'tools/call' }).kind).toBe('invalid');
    expect(classifyClientMessage({ JSONRPC: '2.0', id: 1, method: 'tools/call' }).kind).toBe('invalid');
  });

  it('forwards notifications the safe list does not name, and drops only explicitly denied ones', () => {
    const loaded = loadPolicyText('apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: t\nspec:\n  denied_methods: [notifications/message]\n');
    if (!loaded.ok) throw new Error('policy');
    expect(notificationAllowed(loaded.policy, 'notifications/roots/list_changed')).toBe(true);
    expect(notificationAllowed(loaded.policy, 'Notifications/Message')).toBe(false);
    expect(notificationAllowed(null, 'notifications/cancelled')).toBe(true);
  });
});
