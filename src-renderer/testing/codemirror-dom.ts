/**
 * jsdom lays nothing out, and its Range has no getClientRects: CodeMirror's measuring then logs
 * a TypeError on every update. Empty rectangles are what a layout-less DOM would answer.
 */
export function stubRangeLayout(): void {
  const proto = Range.prototype as Partial<Pick<Range, 'getClientRects' | 'getBoundingClientRect'>>;
  proto.getClientRects ??= () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
  proto.getBoundingClientRect ??= () => new DOMRect();
}
