import { readFileSync } from 'node:fs';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { loadPolicyText } from '../policy/load.js';
import type { AgentPolicy } from '../policy/types.js';
import { recordedCallsYielding } from './recorded.js';
import { parseSuite } from './suite.js';
import { replayYielding, runSuiteYielding, tryCall, type ReplayResult, type SuiteResult, type TrialCall, type TrialEnvironment, type TrialOutcome } from './trial.js';

/*
 * The cockpit's test bench (docs/policy-editor.md "Test bench"), in the runtime: a draft (text, not
 * yet saved) against a call typed by hand, the last N calls a server's proxy recorded, or the suite
 * kept beside the policy (`NAME.suite.json`), each beside the policy in force. Nothing is written.
 */

export interface PolicyTrialsDeps {
  audit: Pick<AuditLog, 'list'>;
  environment: TrialEnvironment;
  /** The policy in force at `path` (the library's `read`), so a draft is compared with what it would replace. */
  readPolicy: (path: string) => string;
}

function suitePathOf(policyPath: string): string {
  return policyPath.replace(/\.ya?ml$/i, '') + '.suite.json';
}

export class PolicyTrials {
  constructor(private readonly deps: PolicyTrialsDeps) {}

  tryCall(draftText: string, path: string | null, call: TrialCall): { draft: TrialOutcome; current: TrialOutcome | null } {
    const { draft, current } = this.policies(draftText, path);
    return { draft: tryCall(draft, call, this.deps.environment), current: current ? tryCall(current, call, this.deps.environment) : null };
  }

  async replay(draftText: string, path: string | null, server: string, last: number): Promise<{ results: ReplayResult[]; scanned: number }> {
    const { draft, current } = this.policies(draftText, path);
    const { calls, scanned } = await recordedCallsYielding(this.deps.audit, server, last);
    return { results: await replayYielding(calls, draft, current, this.deps.environment), scanned };
  }

  async suite(draftText: string, path: string): Promise<{ suitePath: string; results: SuiteResult[] }> {
    const suitePath = suitePathOf(path);
    this.deps.readPolicy(path); // the same path check as the editor's reads
    let text: string;
    try {
      text = readFileSync(suitePath, 'utf8');
    } catch {
      throw new SilasError(ErrorCode.NotFound, `no test suite beside the policy: create ${suitePath} ({"calls": [{"name","tool","args","expect"}…]})`);
    }
    const parsed = parseSuite(text, suitePath);
    if (!parsed.ok) throw new SilasError(ErrorCode.InvalidArgs, parsed.problem);
    const { draft, current } = this.policies(draftText, path);
    return { suitePath, results: await runSuiteYielding(parsed.suite, draft, current, this.deps.environment) };
  }

  private policies(draftText: string, path: string | null): { draft: AgentPolicy; current: AgentPolicy | null } {
    const draft = loadPolicyText(draftText, { draft: true });
    if (!draft.ok) {
      const first = draft.errors[0]!;
      throw new SilasError(ErrorCode.InvalidArgs, `the draft does not load: line ${first.line}, column ${first.column}: ${first.message}`);
    }
    if (path === null) return { draft: draft.policy, current: null };
    // The policy in force is compared for its rules; its signature is the library's concern (policies.list).
    const current = loadPolicyText(this.deps.readPolicy(path), { sourcePath: path, draft: true });
    return { draft: draft.policy, current: current.ok ? current.policy : null };
  }
}
