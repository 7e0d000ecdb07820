/* The Agent Alignment Protocol's models and validation (spec 003), shared by the runtime and the cockpit. */
export * from './card.js';
export * from './constants.js';
export * from './issues.js';
export * from './messages.js';
export * from './results.js';
export * from './trace.js';
export * from './validate-card.js';
export * from './validate-trace.js';
