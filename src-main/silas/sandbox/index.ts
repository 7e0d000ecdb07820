// Public surface of the sandbox for the work item executor and the verification runner.
export { BubblewrapSandboxManager, FRESH_HOME, type BubblewrapSandboxManagerOptions } from './sandbox-manager.js';
export { SandboxedEphemeralExecutor, SANDBOX_PATH, type EphemeralExecutor, type SandboxedExecutorOptions } from './ephemeral-executor.js';
export { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from './bubblewrap.js';
export type {
  Sandbox,
  SandboxAvailability,
  SandboxCreateOptions,
  SandboxEnforcement,
  SandboxManager,
  SandboxRunRequest,
  SandboxRunResult,
} from './types.js';
