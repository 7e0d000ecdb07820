#!/usr/bin/env node
// `npm run bench:egress`: replays agent-egress-bench through `silas proxy` (docs/threat-detection.md).
// Each case the product can carry runs in its own proxy session, in sequence, against a fresh
// data home made for the run; the result lines follow the corpus's RUNNER.md (JSONL to --out,
// summary line on stderr), the figures follow the project's bench format (JSON lines on stdout),
// and the per-category table goes to stderr.
//
// Usage: scripts/with-keyring.sh node scripts/egress-bench/run.js [--policy FILE] [--cases DIR]
//          [--out FILE] [--only ID,ID…] [--docs FILE] [--silas BIN] [--from FILE] [--no-sandbox] [--keep]
//   --from FILE  replay nothing: report the result lines of an earlier run (after editing
//                miss-reasons.js, to rewrite the docs without a new run)
//   --silas BIN  the bin/silas.js to run (default this checkout's): another checkout's, to measure
//                a committed version beside the working tree
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { carriage, loadCases, replayPlan, toolNames } from './cases.js';
import { writePolicyCopy } from './policy-copy.js';
import { replayCase, SILAS_BIN } from './replay.js';
import { figures, misses, notApplicable, table } from './report.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_CASES = resolve(ROOT, '../shared/bench/agent-egress-bench/cases');
const DEFAULT_POLICY = join(ROOT, 'src-main/aip/templates/default.yaml');
const FALLBACK_POLICY = join(ROOT, 'src-main/aip/templates/filesystem-ask-writes.yaml');
/** A case that takes longer is a runner failure, not a verdict (an ask fails closed at once). */
const CASE_TIMEOUT_MS = 90_000;
const MAX_ERRORS_IN_A_ROW = 5;
const START = '<!-- egress-bench:generated:start -->';
const END = '<!-- egress-bench:generated:end -->';

const { values } = parseArgs({
  options: {
    policy: { type: 'string' },
    cases: { type: 'string', default: DEFAULT_CASES },
    out: { type: 'string' },
    only: { type: 'string' },
    docs: { type: 'string' },
    silas: { type: 'string' },
    from: { type: 'string' },
    'no-sandbox': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

if (!values.from && !process.env.SILAS_KEYRING_READY) {
  // A run makes an owner key and a ledger key: they belong in a throwaway keyring, never the person's.
  process.stderr.write('egress-bench: run me under scripts/with-keyring.sh (a throwaway session keyring), as `npm run bench:egress` does\n');
  process.exit(2);
}

const policy = resolve(values.policy ?? (existsSync(DEFAULT_POLICY) ? DEFAULT_POLICY : FALLBACK_POLICY));
if (!values.policy && !existsSync(DEFAULT_POLICY)) process.stderr.write(`egress-bench: ${DEFAULT_POLICY} does not exist yet; using ${FALLBACK_POLICY}\n`);
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const silasBin = resolve(values.silas ?? SILAS_BIN);
const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null;

function line(c, actual, evidence, notes) {
  const score = actual === 'not_applicable' ? 'not_applicable' : actual === 'error' ? 'error' : actual === c.expected_verdict ? 'pass' : 'fail';
  return { case_id: c.id, tool: 'silas', tool_version: version, expected_verdict: c.expected_verdict, actual_verdict: actual, score, evidence, notes };
}

function withTimeout(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no verdict within ${ms / 1000} s`)), ms)))]).finally(() => clearTimeout(timer));
}

async function runCase({ file, case: c }, home, policies) {
  const how = carriage(c);
  const base = { carriage: how.kind, category: c.category, why_expected: c.why_expected };
  if (how.kind === 'not_applicable') return line(c, 'not_applicable', base, how.reason);
  const plan = replayPlan(c);
  const policyCopy = writePolicyCopy(policy, toolNames(plan), join(policies, `${c.id}.yaml`));
  try {
    const options = { home, policy: policyCopy, server: `bench-${c.id}`.slice(0, 64), sandbox: !values['no-sandbox'], silasBin };
    const { verdict, ask, evidence } = await withTimeout(replayCase(plan, file, options), CASE_TIMEOUT_MS);
    return line(c, verdict, { ...base, ask, ...evidence }, how.reason);
  } catch (error) {
    const stderr = typeof error?.stderr === 'string' ? error.stderr.trim().split('\n').slice(-3).join(' / ') : undefined;
    return line(c, 'error', { ...base, error: String(error?.message ?? error), ...(stderr ? { proxy_stderr: stderr } : {}) }, how.reason);
  }
}

/** Replays every selected case in sequence, appending each result line to `outFile` as it comes. */
async function replayAll(outFile) {
  const work = mkdtempSync(join(tmpdir(), 'silas-egress-bench-'));
  const home = join(work, 'home');
  const policies = join(work, 'policies');
  mkdirSync(policies);
  const init = spawnSync(process.execPath, [silasBin, 'init', '--home', home], { encoding: 'utf8' });
  if (init.status !== 0) {
    process.stderr.write(`egress-bench: silas init failed:\n${init.stderr}\n`);
    process.exit(1);
  }
  const entries = loadCases(resolve(values.cases)).filter((e) => !only || only.has(e.case.id));
  if (only && entries.length !== only.size) process.stderr.write(`egress-bench: ${only.size - entries.length} of the --only ids are not in the corpus\n`);
  const results = [];
  writeFileSync(outFile, '');
  let errorsInARow = 0;
  for (const entry of entries) {
    const result = await runCase(entry, home, policies);
    results.push(result);
    writeFileSync(outFile, `${JSON.stringify(result)}\n`, { flag: 'a' });
    if (result.score !== 'not_applicable') process.stderr.write(`${result.score.padEnd(5)} ${result.case_id} (${result.actual_verdict}${result.evidence.ask ? ', ask' : ''})\n`);
    errorsInARow = result.score === 'error' ? errorsInARow + 1 : result.score === 'not_applicable' ? errorsInARow : 0;
    if (errorsInARow === MAX_ERRORS_IN_A_ROW) {
      // The proxy does not start at all (an invalid policy, a broken build): no verdict would follow.
      process.stderr.write(`egress-bench: stopped after ${MAX_ERRORS_IN_A_ROW} errors in a row; the last: ${result.evidence.error}\n`);
      process.exit(1);
    }
  }
  if (!values.keep) rmSync(home, { recursive: true, force: true });
  return results;
}

const outFile = values.from ? resolve(values.from) : resolve(values.out ?? join(mkdtempSync(join(tmpdir(), 'silas-egress-bench-results-')), 'results.jsonl'));
const results = values.from
  ? readFileSync(outFile, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text))
      .filter((r) => !only || only.has(r.case_id))
  : await replayAll(outFile);

for (const figure of figures(results)) process.stdout.write(`${JSON.stringify(figure)}\n`);
process.stderr.write(`\npolicy: ${policy}\nresults: ${outFile}\n\n${table(results)}\n\n`);

if (values.docs) {
  const docs = resolve(values.docs);
  const text = readFileSync(docs, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from === -1 || to < from) {
    process.stderr.write(`egress-bench: ${docs} has no ${START} … ${END} section; not written\n`);
  } else {
    const policyName = policy.startsWith(ROOT) ? policy.slice(ROOT.length) : policy;
    const generated = [
      START,
      values.from
        ? `Generated by \`npm run bench:egress -- --from RESULTS --docs docs/threat-detection.md\` on ${new Date().toISOString().slice(0, 10)} from the result lines of an earlier run.`
        : `Generated by \`npm run bench:egress -- --docs docs/threat-detection.md\` on ${new Date().toISOString().slice(0, 10)}, policy \`${policyName}\`${values['no-sandbox'] ? ', unsandboxed' : ''}.`,
      '',
      '### Results',
      '',
      table(results),
      '',
      '### Not carried',
      '',
      notApplicable(results),
      '',
      '### Misses',
      '',
      'Attacks allowed, benign cases blocked (an ask on a benign case is a false positive), runner errors, and attacks blocked only because an ask failed closed.',
      '',
      misses(results),
      END,
    ].join('\n');
    writeFileSync(docs, text.slice(0, from) + generated + text.slice(to + END.length));
    process.stderr.write(`egress-bench: wrote the generated section of ${docs}\n`);
  }
}

const count = (score) => results.filter((r) => r.score === score).length;
// SCORING.md: a run with errors on more than 20% of the applicable cases is not to be published.
const applicable = results.length - count('not_applicable');
if (count('error') > applicable * 0.2) process.stderr.write(`egress-bench: ${count('error')} errors of ${applicable} applicable cases (over 20%): this run is not valid (SCORING.md)\n`);
process.stderr.write(`results: ${count('pass')} passed, ${count('fail')} failed, ${count('not_applicable')} not_applicable, ${count('error')} errors (${results.length} total)\n`);
