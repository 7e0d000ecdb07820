// Public surface of the context manager (spec 002 §3.5, §4.3, §5.7, §5.13) for the Stream.
export { zoneBudgets, findProfile, type ZoneBudgets } from './budget.js';
export {
  ContextManager,
  type ContextItemDraft,
  type ContextManagerDeps,
  type EnforceResult,
  type EvictedItem,
  type EvictionReason,
} from './context-manager.js';
export { DEFAULT_TRIVIAL_ACK, TRIVIAL_MAX_TOKENS, maskedPlaceholder, parseToolResultSource, toolResultSource, type ToolOutcome } from './eviction.js';
export { BLOCK_END, blockHeader, escapeContent, renderBlock, type RenderedSection } from './render.js';
export { CHARS_PER_TOKEN, HeuristicTokenCounter, codePointLength, type TokenCounter } from './token-counter.js';
