import { vi } from 'vitest';

/**
 * jsdom has no layout: every size is 0, so a virtualizer would render nothing. Give every
 * element a viewport-sized client box and rows a fixed height, as a browser would.
 */
export function stubLayout({ viewport = 600, row = 30 } = {}): () => void {
  const client = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(viewport);
  const clientWidth = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1000);
  const offset = vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(row);
  return () => {
    client.mockRestore();
    clientWidth.mockRestore();
    offset.mockRestore();
  };
}
