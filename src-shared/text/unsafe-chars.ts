/**
 * Characters that make shown text read other than it is, wherever text a policy, a plan, a model
 * or a server wrote is shown to the person (cards, notifications, the terminal): C0 and C1
 * controls and DEL (escape sequences), the bidirectional marks and overrides, and the invisible
 * ones (zero-width spaces and joiners, line and paragraph separators, word joiner, BOM). One set,
 * so a surface cannot forget one.
 */
export const UNSAFE_SHOWN_CHARS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff';

/** Whether the code point is in `UNSAFE_SHOWN_CHARS` (lone surrogates are the caller's concern). */
export function isUnsafeShownCodePoint(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2069) ||
    code === 0xfeff
  );
}
