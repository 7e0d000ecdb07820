export { ApprovalEngine, DEFAULT_MAX_TTL_MS, DEFAULT_TTL_MS } from './engine.js';
export type { ApprovalEngineDeps, ApprovalSubject, ApprovalTarget, CheckOptions, IssueOptions, VerifyOptions, VerifyResult } from './engine.js';
export type { ApprovalAuditSink } from './audit.js';
export { NONCE_SAFETY_BUFFER_MS, NonceDomain, NonceReplayError, SqliteNonceStore, execBinding, type NonceStore } from './nonce-store.js';
export { approvalSigningBytes, deriveTokenId, payloadHash, resolveApprovalStrength, type ScopeMinStrength } from './signing.js';
export { isTemplateInstance, spawnedTaskPolicyHash, spawnedTaskSubject, workItemSubject } from './subjects.js';
