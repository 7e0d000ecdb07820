// Public surface of the context manager (spec 002 §3.5, §4.3, §5.7, §5.13) for the Stream.
export { ContextManager } from './context-manager.js';
export { HeuristicTokenCounter } from './token-counter.js';
export { ContextEviction } from './two-tier.js';
