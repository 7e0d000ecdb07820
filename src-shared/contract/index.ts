export * from './define.js';
export * from './calls.js';
export * from './events.js';
export * from './envelope.js';
export * from './wire.js';
export * from './bridge.js';
export * from './call-core.js';
export * from './ndjson.js';
