import type { MouseEvent } from 'react';

/** Opening a page in a new tab or window must keep working, so only plain clicks are taken over. */
export function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}
