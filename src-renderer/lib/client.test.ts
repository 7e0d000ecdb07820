import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-shared/contract/index.js';
import { ClientError, createClient, E_BAD_RESULT } from './client.js';
import type { Transport } from './transport.js';

function transportAnswering(envelope: Envelope<unknown>): Transport & { calls: [string, unknown][] } {
  const seen: [string, unknown][] = [];
  return {
    calls: seen,
    state: 'connected',
    call: async (name, args) => {
      seen.push([name, args]);
      return envelope;
    },
    onEvent: () => () => {},
    onState: () => () => {},
    close: () => {},
  };
}

const info = {
  version: '0.1.0',
  mode: 'headless',
  home: '/home/u/.silas',
  ownerFingerprint: 'SHA256:abc',
  startedAt: '2026-01-01T00:00:00.000Z',
  pid: 42,
};

describe('createClient', () => {
  it('returns the validated value of an ok envelope', async () => {
    const transport = transportAnswering({ ok: true, value: info });
    const client = createClient(transport);
    await expect(client.call('runtime.info', {})).resolves.toEqual(info);
    expect(transport.calls).toEqual([['runtime.info', {}]]);
  });

  it('throws a ClientError with the code and message of an error envelope', async () => {
    const client = createClient(transportAnswering({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'socket dropped' } }));
    const error = await client.call('audit.verify', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: 'E_UNAVAILABLE', message: 'socket dropped' });
  });

  it('throws E_BAD_RESULT when the value violates the result schema', async () => {
    const client = createClient(transportAnswering({ ok: true, value: { ...info, mode: 'spaceship' } }));
    const error = await client.call('runtime.info', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: E_BAD_RESULT, message: expect.stringContaining('result.mode') });
  });
});
