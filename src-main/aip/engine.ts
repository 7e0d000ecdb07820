import { ThreatDetectors } from './detect/detectors.js';
import { DlpEngine } from './dlp/engine.js';
import { PolicyEvaluator, type ToolDefinition } from './evaluate/evaluator.js';
import type { PathBases } from './evaluate/paths/path-bases.js';
import type { Environment } from './evaluate/paths/shell-vars.js';
import { ProtectedPathMatcher } from './evaluate/protected-paths/index.js';
import { ToolRateLimiter } from './evaluate/rate-limiter.js';
import type { AgentPolicy } from './policy/types.js';

export interface PolicyEngineOptions {
  homeDir: string;
  cwd: string;
  /** The Silas data home: protected automatically, like the policy file (spec 001 §10.1). */
  dataHome?: string;
  /** Further directories the server resolves relative paths against (command line, MCP roots). */
  pathBases?: PathBases;
  /** The server's environment, for shell variables in command strings; absent when unknown. */
  environment?: Environment;
  toolDefinition?: (normalizedTool: string) => ToolDefinition | null;
  now?: () => number;
}

export interface PolicyEngine {
  evaluator: PolicyEvaluator;
  dlp: DlpEngine | null;
  /** `spec.x-silas-threats`: null only when no policy is loaded. */
  threats: ThreatDetectors | null;
}

/** Everything that enforces one loaded policy, built once when the policy loads. */
export function createPolicyEngine(policy: AgentPolicy | null, options: PolicyEngineOptions): PolicyEngine {
  const alwaysProtect = [policy?.sourcePath, options.dataHome].filter((p): p is string => typeof p === 'string' && p.length > 0);
  const protectedPaths = policy ? new ProtectedPathMatcher(policy.protectedPaths, { homeDir: options.homeDir, cwd: options.cwd, alwaysProtect, pathBases: options.pathBases, environment: options.environment }) : undefined;
  const evaluator = new PolicyEvaluator(policy, {
    protectedPaths,
    toolDefinition: options.toolDefinition,
    rateLimiter: new ToolRateLimiter(options.now),
  });
  return { evaluator, dlp: policy?.dlp ? new DlpEngine(policy.dlp) : null, threats: policy ? new ThreatDetectors(policy.threats) : null };
}
