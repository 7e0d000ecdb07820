// Public surface of external verification (§4.10, §5.3).
export { VerificationRunner } from './verification-runner.js';
