import { unusedHandlers } from '../testing/handlers.js';
import { describe, expect, it } from 'vitest';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { calls } from '../../src-shared/contract/calls.js';
import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import { ControlRouter, describeZodError, type CallContext, type CallHandlers } from './router.js';
import { z } from 'zod';

const info: RuntimeInfo = {
  version: '0.1.0-test',
  mode: 'headless',
  home: '/tmp/silas-home',
  ownerFingerprint: 'fp-test',
  startedAt: '2025-01-01T00:00:00.000Z',
  pid: 4242,
};

const ctx: CallContext = { transport: 'in-process' };

function makeRouter(overrides: Partial<CallHandlers> = {}) {
  const logged: Array<{ message: string; detail: unknown }> = [];
  const seen: Array<{ name: string; args: unknown; ctx: CallContext }> = [];
  const handlers: CallHandlers = {
    ...unusedHandlers(),
    'runtime.info': (args, c) => {
      seen.push({ name: 'runtime.info', args, ctx: c });
      return info;
    },
    'audit.list': (args, c) => {
      seen.push({ name: 'audit.list', args, ctx: c });
      return { entries: [], total: 0, head: null };
    },
    'audit.verify': () => ({ valid: true, entries: 0, checkpoints: 0, firstInvalid: null, verifiedAt: '2025-01-01T00:00:00.000Z' }),
    ...overrides,
  };
  const router = new ControlRouter(handlers, { error: (message, detail) => logged.push({ message, detail }) });
  return { router, logged, seen };
}

function errorOf(envelope: { ok: boolean }): { code: string; message: string } {
  expect(envelope.ok).toBe(false);
  return (envelope as { ok: false; error: { code: string; message: string } }).error;
}

describe('ControlRouter: call names', () => {
  it('answers a valid call with {ok:true, value} and passes the parsed args and context to the handler', async () => {
    const { router, seen } = makeRouter();
    const envelope = await router.dispatch('runtime.info', {}, { transport: 'websocket', peer: '127.0.0.1' });
    expect(envelope).toEqual({ ok: true, value: info });
    expect(seen).toEqual([{ name: 'runtime.info', args: {}, ctx: { transport: 'websocket', peer: '127.0.0.1' } }]);
  });

  it('applies schema defaults before the handler sees the args', async () => {
    const { router, seen } = makeRouter();
    const envelope = await router.dispatch('audit.list', undefined, ctx);
    expect(envelope.ok).toBe(true);
    expect(seen[0]?.args).toEqual({ limit: 200 });
  });

  it.each([
    ['no.such.call'],
    [''],
    ['RUNTIME.INFO'],
    ['runtime.info '],
    // Names inherited from Object.prototype must never resolve to a "handler".
    ['__proto__'],
    ['constructor'],
    ['toString'],
    ['hasOwnProperty'],
  ])('refuses the unknown call name %j with E_UNKNOWN_CALL', async (name) => {
    const { router, seen } = makeRouter();
    const error = errorOf(await router.dispatch(name, {}, ctx));
    expect(error.code).toBe(ErrorCode.UnknownCall);
    expect(error.message).toContain('runtime.info');
    expect(seen).toEqual([]);
  });

  it.each([[42], [null], [undefined], [{ name: 'runtime.info' }], [['runtime.info']]])('refuses a non-string name %j with E_UNKNOWN_CALL', async (name) => {
    const { router, seen } = makeRouter();
    expect(errorOf(await router.dispatch(name, {}, ctx)).code).toBe(ErrorCode.UnknownCall);
    expect(seen).toEqual([]);
  });

  it('keeps an unknown name short in the message (no reflection of a huge attacker string)', async () => {
    const { router } = makeRouter();
    const error = errorOf(await router.dispatch('x'.repeat(10_000), {}, ctx));
    expect(error.code).toBe(ErrorCode.UnknownCall);
    // At most 80 characters of the name are echoed; the rest of the message is the list of known calls.
    expect(error.message).not.toContain('x'.repeat(81));
    expect(error.message.length).toBeLessThan(200 + Object.keys(calls).join(', ').length);
  });
});

describe('ControlRouter: argument validation', () => {
  it('names the field path of a bad argument', async () => {
    const { router, seen } = makeRouter();
    const error = errorOf(await router.dispatch('audit.list', { limit: 0 }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidArgs);
    expect(error.message).toContain('audit.list');
    expect(error.message).toContain('args.limit');
    expect(seen).toEqual([]);
  });

  it('names the field path of a wrongly typed argument', async () => {
    const { router } = makeRouter();
    const error = errorOf(await router.dispatch('audit.list', { before: 'yesterday' }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidArgs);
    expect(error.message).toContain('args.before');
  });

  it('refuses a limit above the page maximum', async () => {
    const { router } = makeRouter();
    const error = errorOf(await router.dispatch('audit.list', { limit: 1001 }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidArgs);
    expect(error.message).toContain('args.limit');
  });

  it('rejects extra keys (schemas are strict) and names the key', async () => {
    const { router, seen } = makeRouter();
    const error = errorOf(await router.dispatch('audit.list', { limit: 5, sql: 'DROP TABLE audit_entries' }, ctx));
    expect(error.code).toBe(ErrorCode.InvalidArgs);
    expect(error.message).toContain('sql');
    const error2 = errorOf(await router.dispatch('runtime.info', { verbose: true }, ctx));
    expect(error2.code).toBe(ErrorCode.InvalidArgs);
    expect(error2.message).toContain('verbose');
    expect(seen).toEqual([]);
  });

  it.each([[[]], ['{}'], [7], [true]])('refuses non-object args %j', async (args) => {
    const { router, seen } = makeRouter();
    expect(errorOf(await router.dispatch('runtime.info', args, ctx)).code).toBe(ErrorCode.InvalidArgs);
    expect(seen).toEqual([]);
  });

  it('refuses a __proto__ key as an unrecognized argument (no prototype smuggling)', async () => {
    const { router, seen } = makeRouter();
    const args = JSON.parse('{"__proto__": {"limit": 0}, "limit": 3}') as unknown;
    const error = errorOf(await router.dispatch('audit.list', args, ctx));
    expect(error.code).toBe(ErrorCode.InvalidArgs);
    expect(error.message).toContain('__proto__');
    expect(seen).toEqual([]);
    expect(({} as Record<string, unknown>).limit).toBeUndefined();
  });
});

describe('ControlRouter: handler failures', () => {
  it('keeps the code and message of a SilasError thrown by a handler', async () => {
    const { router, logged } = makeRouter({
      'audit.verify': () => {
        throw new SilasError(ErrorCode.KeyMissing, 'unlock the OS keyring first');
      },
    });
    expect(errorOf(await router.dispatch('audit.verify', {}, ctx))).toEqual({ code: ErrorCode.KeyMissing, message: 'unlock the OS keyring first' });
    expect(logged).toEqual([]);
  });

  it('keeps the code of a SilasError from an async handler', async () => {
    const { router } = makeRouter({
      'audit.verify': async () => {
        await Promise.resolve();
        throw new SilasError(ErrorCode.Database, 'database is busy; retry');
      },
    });
    expect(errorOf(await router.dispatch('audit.verify', {}, ctx)).code).toBe(ErrorCode.Database);
  });

  it('turns a plain Error into E_INTERNAL without leaking its message or stack, and logs it', async () => {
    const secret = 'SELECT * FROM secrets WHERE id = 42 /home/alice/.ssh/id_ed25519';
    const { router, logged } = makeRouter({
      'runtime.info': () => {
        throw new Error(secret);
      },
    });
    const error = errorOf(await router.dispatch('runtime.info', {}, ctx));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).toContain('runtime.info');
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toMatch(/\bat .*\(|\.ts:\d+|Error:/);
    expect(logged).toHaveLength(1);
    expect((logged[0]?.detail as Error).message).toBe(secret);
  });

  it('turns a thrown non-Error (string, undefined) into E_INTERNAL', async () => {
    const { router } = makeRouter({
      'runtime.info': () => {
        throw 'boom';
      },
      'audit.verify': () => Promise.reject(undefined),
    });
    expect(errorOf(await router.dispatch('runtime.info', {}, ctx)).code).toBe(ErrorCode.Internal);
    expect(errorOf(await router.dispatch('audit.verify', {}, ctx)).code).toBe(ErrorCode.Internal);
  });

  it('does not trust an error object that merely looks like a SilasError', async () => {
    const { router } = makeRouter({
      'runtime.info': () => {
        throw Object.assign(new Error('internal detail'), { code: ErrorCode.Unauthorized });
      },
    });
    const error = errorOf(await router.dispatch('runtime.info', {}, ctx));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).not.toContain('internal detail');
  });

  it('answers E_INTERNAL when a handler returns a value outside the result schema', async () => {
    const { router, logged } = makeRouter({
      'runtime.info': () => ({ ...info, pid: 'not a number' }) as unknown as RuntimeInfo,
    });
    const error = errorOf(await router.dispatch('runtime.info', {}, ctx));
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).not.toContain('not a number');
    expect(logged).toHaveLength(1);
    expect(String(logged[0]?.detail)).toContain('result.pid');
  });

  it('strips keys a handler returns beyond the result schema (no accidental data leak)', async () => {
    const { router } = makeRouter({
      'runtime.info': () => ({ ...info, privateKeyPem: '-----BEGIN PRIVATE KEY-----' }) as RuntimeInfo,
    });
    const envelope = await router.dispatch('runtime.info', {}, ctx);
    expect(envelope.ok).toBe(true);
    expect(JSON.stringify(envelope)).not.toContain('PRIVATE KEY');
  });
});

describe('describeZodError', () => {
  it('prefixes paths with the root and keeps at most three issues', () => {
    const schema = z.object({ a: z.number(), b: z.number(), c: z.number(), d: z.object({ e: z.string() }) });
    const result = schema.safeParse({ a: 'x', b: 'x', c: 'x', d: { e: 1 } });
    expect(result.success).toBe(false);
    if (result.success) return;
    const text = describeZodError(result.error, 'message');
    expect(text.split('; ')).toHaveLength(3);
    expect(text).toContain('message.a:');
    expect(text).not.toContain('message.d.e');
  });
});

describe('ControlRouter: capabilities (one check, from each call\'s declared access)', () => {
  const DECIDE = ['review.decide', 'approvals.revokeStanding', 'clients.planWrap', 'clients.wrap', 'clients.unwrap', 'ilp.distill', 'ilp.rollback', 'memory.update', 'memory.delete', 'memory.promote', 'memory.exportPage', 'memory.importBegin', 'memory.importChunk', 'memory.importCommit', 'memory.importAbort'];
  const DECIDE_MODELS = ['models.configure', 'models.test', 'secrets.store', 'policies.save', 'policies.restore', 'policies.adopt', 'policies.create', 'alignment.saveCard', 'alignment.useDerivedCard', 'cockpit.revokeSessions', 'ilp.replay'];
  // cockpit.*: `silas open`, whose authority is the owner signature it carries (docs/control-plane.md).
  const ASK = ['approvals.request', 'approvals.withdraw', 'plans.requestApproval', 'cockpit.linkChallenge', 'cockpit.issueLink', 'servers.reportStartFailure'];
  const CONVERSE = ['stream.open', 'stream.send', 'stream.cancel', 'stream.context', 'stream.approve', 'stream.subscribe', 'stream.unsubscribe'];

  it('declares the access of every call; decisions need decide, proxies\' questions need ask, conversations converse', () => {
    for (const [name, spec] of Object.entries(calls)) expect(['ask', 'read', 'decide', 'converse'], name).toContain(spec.access);
    expect(Object.keys(calls).filter((n) => calls[n as keyof typeof calls].access === 'converse').sort()).toEqual([...CONVERSE].sort());
    expect(Object.keys(calls).filter((n) => calls[n as keyof typeof calls].access === 'decide').sort()).toEqual([...DECIDE, ...DECIDE_MODELS].sort());
    expect(Object.keys(calls).filter((n) => calls[n as keyof typeof calls].access === 'ask').sort()).toEqual([...ASK].sort());
  });

  function refusingRouter() {
    const refused: Array<[string, Record<string, string | number>]> = [];
    const ran: string[] = [];
    const handlers = Object.fromEntries(Object.keys(calls).map((name) => [name, () => void ran.push(name)])) as unknown as CallHandlers;
    const router = new ControlRouter(handlers, { error: () => undefined }, (event, data) => refused.push([event, data]));
    return { router, refused, ran };
  }

  it.each(DECIDE)('refuses %s over the local socket (the ask credential) before its arguments or handler, and reports control.decision_refused', async (name) => {
    const { router, refused, ran } = refusingRouter();
    const error = errorOf(await router.dispatch(name, { junk: true }, { transport: 'local-socket', peer: 'local' }));
    expect(error.code).toBe(ErrorCode.Unauthorized);
    expect(error.message).toContain('decide in the cockpit');
    expect(refused).toEqual([['control.decision_refused', { call: name, needs: 'decide', transport: 'local-socket', peer: 'local' }]]);
    expect(ran).toEqual([]);
  });

  it.each(['runtime.info', 'audit.list', 'audit.verify', 'review.list', 'approvals.listStanding', 'servers.list', 'clients.list'])('refuses the read call %s over the local socket and reports control.call_refused', async (name) => {
    const { router, refused, ran } = refusingRouter();
    expect(errorOf(await router.dispatch(name, {}, { transport: 'local-socket' })).code).toBe(ErrorCode.Unauthorized);
    expect(refused).toEqual([['control.call_refused', expect.objectContaining({ call: name, needs: 'read' })]]);
    expect(ran).toEqual([]);
  });

  it.each(ASK)('refuses %s from the cockpit transports: the cockpit decides, it does not ask', async (name) => {
    const { router, refused } = refusingRouter();
    for (const transport of ['websocket', 'ipc'] as const) expect(errorOf(await router.dispatch(name, {}, { transport })).code).toBe(ErrorCode.Unauthorized);
    expect(refused.map(([event]) => event)).toEqual(['control.call_refused', 'control.call_refused']);
  });

  it('lets the cockpit transports reach decide and read calls and the local socket reach ask calls (then validates arguments)', async () => {
    const { router, refused } = refusingRouter();
    for (const transport of ['websocket', 'ipc', 'in-process'] as const) {
      expect(errorOf(await router.dispatch('review.decide', {}, { transport })).code).toBe(ErrorCode.InvalidArgs);
    }
    for (const transport of ['local-socket', 'in-process'] as const) {
      expect(errorOf(await router.dispatch('approvals.request', {}, { transport })).code).toBe(ErrorCode.InvalidArgs);
    }
    expect(refused).toEqual([]);
  });
});
