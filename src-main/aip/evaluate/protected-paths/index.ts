// Public surface of the protected-path check, for the policy engine, the evaluator and the
// conformance runner; the parts are described in docs/protected-paths.md "How the matcher is built".
export { ProtectedPathMatcher } from './protected-path-matcher.js';
export type { ProtectedPathFinding, ProtectedPathMatcherOptions } from './types.js';
