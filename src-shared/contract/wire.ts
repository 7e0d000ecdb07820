import { z } from 'zod';
import { EnvelopeSchema } from './envelope.js';

/**
 * The WebSocket framing of the contract. The first client frame must be `auth`; the token
 * never travels in a URL. Close codes below are part of the protocol.
 */
export const WS_CLOSE_UNAUTHORIZED = 4001;
export const WS_CLOSE_GOING_AWAY = 1001;
export const WS_AUTH_TIMEOUT_MS = 5000;

export const ClientAuthFrame = z.object({ type: z.literal('auth'), token: z.string().min(1).max(512) }).strict();

export const ClientCallFrame = z
  .object({
    type: z.literal('call'),
    id: z.union([z.string().min(1).max(64), z.number().int()]),
    name: z.string().min(1).max(128),
    args: z.unknown().optional(),
  })
  .strict();

export const ServerFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), serverVersion: z.string() }),
  z.object({ type: z.literal('result'), id: z.union([z.string(), z.number()]).nullable(), result: EnvelopeSchema }),
  z.object({ type: z.literal('event'), name: z.string(), payload: z.unknown() }),
  /** The local socket's close notice (WebSocket has close frames of its own). */
  z.object({ type: z.literal('closed'), code: z.number().int(), reason: z.string() }),
]);
export type ServerFrame = z.infer<typeof ServerFrame>;
