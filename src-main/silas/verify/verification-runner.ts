import { isAbsolute } from 'node:path';
import { isSilasError, SilasError } from '../../../src-shared/errors.js';
import {
  SandboxErrorCode,
  VERIFICATION_OUTPUT_MAX_CHARS,
  VerificationReport,
  VerificationResult,
} from '../../../src-shared/silas/execution.js';
import { VerificationCheck } from '../../../src-shared/silas/work.js';
import { isWithin } from '../../sandbox/paths.js';
import type { Sandbox, SandboxManager } from '../../sandbox/types.js';
import { evaluateExpectation } from './expectations.js';
import { canonicalRoots, lookupConfined } from './file-confinement.js';

/** §5.3: the system directories only; interpreters are never found in the agent's work dir. */
const VERIFY_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * Everything a check's tools would otherwise read from places the agent wrote, so the agent cannot
 * make a check on its own work pass (docs/silas/sandbox.md "VerificationRunner"): Python's user
 * site and script/cwd entry on sys.path (a planted .pth, usercustomize or ast.py), cached bytecode
 * next to the sources, git's global and system config, pip's config files. HOME itself is an empty
 * tmpfs of the check's own sandbox, never the work dir.
 */
export function checkEnvironment(home: string): Record<string, string> {
  return {
    PATH: VERIFY_PATH,
    HOME: home,
    PYTHONNOUSERSITE: '1',
    PYTHONSAFEPATH: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    // Bytecode is read from (and would be written to) this empty tree only, so a forged
    // __pycache__/*.pyc in the work dir is never loaded.
    PYTHONPYCACHEPREFIX: `${home}/.pycache`,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_NO_INPUT: '1',
  };
}
/** How much of each stream is read; predicates see this much, the report keeps 1000 characters. */
const CAPTURE_BYTES = 1024 * 1024;

export interface VerificationRunnerOptions {
  sandboxManager: SandboxManager;
  /** The task's work directory (host path): the check's cwd, mounted read-only. */
  workDir: string;
  /** Configured project directories: mounted read-only and permitted for `file_exists`. */
  projectDirs?: readonly string[];
  maxMemoryMb?: number;
  maxCpuSeconds?: number;
  now?: () => Date;
}

/**
 * Keeps the first 1000 characters (UTF-16 units, as JavaScript and the schema count them),
 * dropping a lone high surrogate at the cut so the result is still well-formed text.
 */
function truncateOutput(text: string): string {
  if (text.length <= VERIFICATION_OUTPUT_MAX_CHARS) return text;
  const cut = text.slice(0, VERIFICATION_OUTPUT_MAX_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * §4.10 / §5.3 VerificationRunner. Each check runs in a fresh sandbox of its own, never the
 * agent's: the work dir is mounted read-only, HOME is an empty tmpfs, the environment is
 * `checkEnvironment` only, the network
 * is unshared unless the check says `network: true`. Nothing the agent controls (its env, its
 * sandbox config, its output) is an input here; only the approved checks and the work dir are.
 */
export class VerificationRunner {
  constructor(private readonly options: VerificationRunnerOptions) {
    for (const dir of [options.workDir, ...(options.projectDirs ?? [])]) {
      if (!isAbsolute(dir)) throw new SilasError(SandboxErrorCode.PathInvalid, `VerificationRunner: "${dir}" must be an absolute path`);
    }
    const onPath = VERIFY_PATH.split(':').find((entry) => isWithin(entry, options.workDir) || isWithin(options.workDir, entry));
    if (onPath !== undefined) {
      // The agent writes the work dir: a check would run the agent's `python3` instead of the system's.
      throw new SilasError(SandboxErrorCode.PathInvalid, `VerificationRunner: the work dir "${options.workDir}" overlaps the check PATH entry "${onPath}"; use a work dir outside the system directories`);
    }
  }

  async runChecks(checks: readonly unknown[]): Promise<VerificationReport> {
    const results: VerificationResult[] = [];
    // One at a time: checks may depend on each other's order (build, then test), as in the spec's plans.
    for (const [index, check] of checks.entries()) results.push(await this.runCheck(check, index));
    const failed = results.filter((result) => !result.passed);
    return VerificationReport.parse({
      all_passed: failed.length === 0,
      results,
      failed,
      timestamp: (this.options.now?.() ?? new Date()).toISOString(),
    });
  }

  private async runCheck(input: unknown, index: number): Promise<VerificationResult> {
    const parsed = VerificationCheck.safeParse(input);
    const fallbackName = (input as { name?: unknown } | null)?.name;
    if (!parsed.success) {
      const detail = parsed.error.issues.map((issue) => `${['verify', index, ...issue.path].join('.')}: ${issue.message}`).join('; ');
      return result(typeof fallbackName === 'string' ? fallbackName : `check ${index + 1}`, false, `Invalid check: ${detail}`, '', null);
    }
    const check = parsed.data;
    const workDir = this.options.workDir;
    const roots = canonicalRoots([workDir, ...(this.options.projectDirs ?? [])]);
    const fileExists = (path: string) => lookupConfined(path, roots[0] ?? workDir, roots);
    // A path that could never be answered is refused before anything runs.
    if (check.expect.file_exists !== null) {
      const lookup = fileExists(check.expect.file_exists);
      if (!lookup.ok) return result(check.name, false, lookup.reason, '', null);
    }

    let sandbox: Sandbox | undefined;
    try {
      sandbox = await this.options.sandboxManager.create(
        {
          work_dir: workDir,
          network_access: check.network,
          filesystem_read: [...(this.options.projectDirs ?? [])],
          max_memory_mb: this.options.maxMemoryMb ?? 512,
          max_cpu_seconds: this.options.maxCpuSeconds ?? 60,
          env: {},
        },
        { workDirAccess: 'read-only', createWorkDir: false, freshHome: true },
      );
      if (sandbox.homeDir === null) {
        throw new SilasError(SandboxErrorCode.BackendUnavailable, 'the sandbox manager gave the check no fresh HOME (freshHome); the check cannot run without the work dir as HOME');
      }
      // `run` is a shell command (§3.3; the spec's own plans use pipes): it is the argument of
      // sh -c inside the sandbox, from the approved plan, never built from agent output.
      const run = await sandbox.run({
        argv: ['/bin/sh', '-c', check.run],
        env: checkEnvironment(sandbox.homeDir),
        timeoutMs: check.timeout * 1000,
        maxOutputBytes: CAPTURE_BYTES,
      });
      const output = truncateOutput(run.stdout);
      if (run.timedOut) return result(check.name, false, `Timeout after ${check.timeout}s`, output, null);
      const verdict = evaluateExpectation(check.expect, { stdout: run.stdout, exitCode: run.exitCode }, fileExists);
      return result(check.name, verdict.passed, verdict.reason, output, run.exitCode);
    } catch (error) {
      const code = isSilasError(error) ? `${error.code}: ` : '';
      return result(check.name, false, `${code}${(error as Error).message}`, '', null);
    } finally {
      if (sandbox) await this.options.sandboxManager.destroy(sandbox.id);
    }
  }
}

function result(name: string, passed: boolean, reason: string, output: string, exitCode: number | null): VerificationResult {
  return VerificationResult.parse({ name, passed, reason, output, exit_code: exitCode });
}
