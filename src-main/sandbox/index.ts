// Public surface of the sandbox for the work item executor and the verification runner.
export { BubblewrapSandboxManager } from './sandbox-manager.js';
export { SandboxedEphemeralExecutor } from './ephemeral-executor.js';
export type { SandboxManager } from './types.js';
