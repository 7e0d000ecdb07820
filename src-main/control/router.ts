import type { z } from 'zod';
import { calls, isCallName, type CallName, type CallResult, type ParsedCallArgs } from '../../src-shared/contract/calls.js';
import { fail, ok, type Envelope } from '../../src-shared/contract/envelope.js';
import { ErrorCode, isSilasError } from '../../src-shared/errors.js';
import { refusalMessage, sessionMay, type Transport } from './capabilities.js';

/**
 * Who is calling. The transport stands for the one credential it accepts, so it fixes the
 * session's capabilities (capabilities.ts); the router checks them before any handler runs.
 */
export interface CallContext {
  transport: Transport;
  peer?: string;
  /** The session making the call: events published to it reach only it (conversation scopes). */
  session?: string;
  /** Aborts when the session's connection ends: what it asked and still waits for is withdrawn (docs/review.md "Withdrawn"). */
  ended?: AbortSignal;
}

/** Where refused calls are reported; the runtime appends them to the audit chain (rate-capped). */
export type RefusalSink = (event: 'control.decision_refused' | 'control.call_refused', data: Record<string, string | number>) => void;

type CallHandler<N extends CallName> = (args: ParsedCallArgs<N>, ctx: CallContext) => CallResult<N> | Promise<CallResult<N>>;
export type CallHandlers = { [N in CallName]: CallHandler<N> };

export interface RouterLogger {
  error(message: string, detail?: unknown): void;
}

/** Formats a zod error as "field: problem" so a person knows what to fix. */
export function describeZodError(error: z.ZodError, root = 'args'): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

/**
 * Dispatches a contract call: validates the name, checks the session may make it (the call's
 * declared `access` against the transport's capabilities — the only authorisation check),
 * validates the arguments against the declaration, runs the handler, and always answers with an envelope — a handler's bug never reaches the
 * caller as a stack trace, and a malformed call never takes the transport down.
 */
export class ControlRouter {
  constructor(
    private readonly handlers: CallHandlers,
    private readonly logger: RouterLogger,
    private readonly onRefused: RefusalSink = () => undefined,
  ) {}

  async dispatch(name: unknown, rawArgs: unknown, ctx: CallContext): Promise<Envelope<unknown>> {
    if (!isCallName(name)) {
      return fail(ErrorCode.UnknownCall, `unknown call ${JSON.stringify(String(name)).slice(0, 80)}; known calls: ${Object.keys(calls).join(', ')}`);
    }
    const spec = calls[name];
    if (!sessionMay(ctx.transport, spec.access)) {
      const event = spec.access === 'decide' ? 'control.decision_refused' : 'control.call_refused';
      this.onRefused(event, { call: name, needs: spec.access, transport: ctx.transport, peer: ctx.peer ?? 'local' });
      return fail(ErrorCode.Unauthorized, refusalMessage(name, spec.access, ctx.transport));
    }
    const parsed = spec.args.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      return fail(ErrorCode.InvalidArgs, `${name}: ${describeZodError(parsed.error)}`);
    }
    try {
      const handler = this.handlers[name] as (args: unknown, ctx: CallContext) => unknown;
      const value = await handler(parsed.data, ctx);
      const checked = spec.result.safeParse(value);
      if (!checked.success) {
        this.logger.error(`handler for ${name} returned a value outside its contract`, describeZodError(checked.error, 'result'));
        return fail(ErrorCode.Internal, `${name} failed inside the runtime; see the runtime log`);
      }
      return ok(checked.data);
    } catch (error) {
      if (isSilasError(error)) return fail(error.code, error.message);
      this.logger.error(`handler for ${name} threw`, error);
      return fail(ErrorCode.Internal, `${name} failed inside the runtime; see the runtime log`);
    }
  }
}
