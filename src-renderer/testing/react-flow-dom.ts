/**
 * What React Flow needs of the DOM and jsdom lacks: a ResizeObserver that reports each element
 * once, and a DOMMatrixReadOnly that reads the zoom from a transform (as the React Flow testing
 * guide, https://reactflow.dev/docs/guides/testing, sets them up). Nothing is laid out: node sizes
 * stay 0, so tests read the graph's data (graph-data.ts) and its accessible words, never positions.
 */
export function stubReactFlowDom(): () => void {
  const saved = { ResizeObserver: globalThis.ResizeObserver, DOMMatrixReadOnly: globalThis.DOMMatrixReadOnly };
  class ResizeObserverStub {
    constructor(private readonly callback: ResizeObserverCallback) {}
    observe(target: Element): void {
      this.callback([{ target } as ResizeObserverEntry], this as unknown as ResizeObserver);
    }
    unobserve(): void {}
    disconnect(): void {}
  }
  class DOMMatrixReadOnlyStub {
    readonly m22: number;
    constructor(transform?: string) {
      const scale = transform?.match(/scale\(([\d.]+)\)/)?.[1];
      this.m22 = scale === undefined ? 1 : Number(scale);
    }
  }
  globalThis.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
  globalThis.DOMMatrixReadOnly = DOMMatrixReadOnlyStub as unknown as typeof DOMMatrixReadOnly;
  return () => {
    globalThis.ResizeObserver = saved.ResizeObserver;
    globalThis.DOMMatrixReadOnly = saved.DOMMatrixReadOnly;
  };
}
