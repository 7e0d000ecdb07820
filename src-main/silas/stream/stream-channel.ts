import type { z } from 'zod';
import type { StreamApproveArgs, StreamCancelResult, StreamContextView, StreamOpenArgs, StreamOpenResult, StreamSendArgs, StreamSendResult, StreamSubscribeArgs, StreamSubscribeResult, StreamUnsubscribeArgs, StreamUnsubscribeResult } from '../../../src-shared/schemas/stream.js';

/** Who is calling: the session its events go to, and the transport (which decides the taint, §5.12). */
export interface StreamCaller {
  session: string;
  transport: 'ipc' | 'websocket' | 'local-socket' | 'in-process';
}

/**
 * The Stream as the control plane sees it (spec 002 §8.1 over our contract; docs/silas/stream.md):
 * a session opens or resumes a scope, sends messages into it and cancels its turn. A scope is
 * held by one session at a time; its events go to that session only.
 */
export interface StreamChannel {
  open(args: z.output<typeof StreamOpenArgs>, caller: StreamCaller): StreamOpenResult | Promise<StreamOpenResult>;
  send(args: z.output<typeof StreamSendArgs>, caller: StreamCaller): z.output<typeof StreamSendResult> | Promise<z.output<typeof StreamSendResult>>;
  cancel(scope: string, caller: StreamCaller): z.output<typeof StreamCancelResult>;
  /** §5.7 context_inspection: what the caller's scope holds in its context and why (read-only). */
  context(scope: string, caller: StreamCaller): StreamContextView;
  /** A plan of the caller's scope answered with a token signed at the terminal. */
  approve(args: z.output<typeof StreamApproveArgs>, caller: StreamCaller): { accepted: boolean; reason: string };
  /** §4.3 subscribe / unsubscribe: live resources kept in the caller's scope's context. */
  subscribe(args: z.output<typeof StreamSubscribeArgs>, caller: StreamCaller): z.output<typeof StreamSubscribeResult>;
  unsubscribe(args: z.output<typeof StreamUnsubscribeArgs>, caller: StreamCaller): z.output<typeof StreamUnsubscribeResult>;
}
