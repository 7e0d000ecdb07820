/**
 * What one ILP message may hold (spec 004 §10.4, resource exhaustion): a message over a limit is
 * refused with a 400 naming the part, before its JSON is read.
 */
export const ILP_LIMITS = {
  /** The start line and every header field together, in bytes. */
  headerSection: 64 * 1024,
  headerCount: 64,
  headerName: 64,
  /** The request target. */
  path: 2048,
  /** The body, in bytes: an answer with its traces fits many times over. */
  body: 4 * 1024 * 1024,
} as const;

/** Whether `text` holds a C0 control character or DEL: in a start line or header value it could make a logged or shown line read as another. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
