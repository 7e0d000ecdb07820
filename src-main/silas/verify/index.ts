// Public surface of external verification (§4.10, §5.3).
export { VerificationRunner, VERIFY_PATH, checkEnvironment, truncateOutput, type VerificationRunnerOptions } from './verification-runner.js';
export { evaluateExpectation, type CheckOutcome, type FileExistsLookup, type Verdict } from './expectations.js';
export { canonicalRoots, lookupConfined, type ConfinedLookup } from './file-confinement.js';
