import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';
import { useTempDirs } from '../../testing/temp.js';
import { createPolicyEngine } from '../engine.js';
import { loadPolicyText } from '../policy/load.js';
import type { AgentPolicy } from '../policy/types.js';
import { parseSuite, type PolicySuite } from '../trial/suite.js';
import { runSuite, type SuiteResult, type TrialEnvironment } from '../trial/trial.js';
import { findTemplate, POLICY_TEMPLATES, readTemplate, type PolicyTemplate } from './catalog.js';

// The gallery of starting policies (docs/policy-templates.md): every template loads cleanly, passes
// its own suite, and its suite is strong enough to notice when a feature of the template is taken
// away.
const tempDir = useTempDirs('silas-policy-templates-');

/** A person's home with a project in it, as the suites imagine it (`~/projects/app`). */
function environment(): TrialEnvironment {
  const home = tempDir();
  const cwd = join(home, 'projects', 'app');
  mkdirSync(cwd, { recursive: true });
  return { homeDir: home, cwd };
}

function load(text: string): AgentPolicy {
  const result = loadPolicyText(text);
  if (!result.ok) throw new Error(`does not load:\n${result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n')}`);
  return result.policy;
}

function suiteOf(template: PolicyTemplate): PolicySuite {
  const parsed = parseSuite(readTemplate(template.id).suiteText, template.suiteFile);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.suite;
}

/*
 * Request-side DLP acts after the rules (the proxy refuses a matching call whatever the rules
 * decided, and the bench reports it as BLOCK). A case that DLP refuses says so in its name,
 * "… [DLP: Rule name]", and every other case must match no pattern at all.
 */
const DLP_MARK = /\[DLP: ([^\]]+)\]$/;

function expectedDlp(name: string): string[] {
  return DLP_MARK.exec(name)?.[1]!.split(', ') ?? [];
}

function dlpProblems(results: readonly SuiteResult[]): string[] {
  const problems: string[] = [];
  for (const result of results) {
    const expected = expectedDlp(result.name);
    const { action, rules } = result.draft.dlp;
    if (JSON.stringify([...rules].sort()) !== JSON.stringify([...expected].sort())) problems.push(`${result.name}: DLP matched [${rules.join(', ')}], the name says [${expected.join(', ')}]`);
    else if (expected.length > 0 && action !== 'block') problems.push(`${result.name}: DLP would ${action}, not block`);
  }
  return problems;
}

/** A secret in a server's answer, which every template redacts. */
const ANSWER_WITH_SECRET = { content: [{ type: 'text', text: 'aws_access_key_id = AKIA2E0A8F3B244C9986' }] };

/** Everything that differs from what the template promises, for one policy text: empty when it keeps every promise. */
function problems(policyText: string, suite: PolicySuite, env: TrialEnvironment): string[] {
  const policy = load(policyText);
  const results = runSuite(suite, policy, null, env);
  const failed = results.filter((r) => !r.passed).map((r) => `${r.name}: expected ${r.expected}, got ${r.draft.decision} (${r.draft.reason})`);
  const dlp = createPolicyEngine(policy, env).dlp;
  const redacted = dlp?.redactResponse(ANSWER_WITH_SECRET).events.map((e) => e.rule) ?? [];
  const answer = redacted.includes('AWS access key') ? [] : ['an AWS key in the server\'s answer is not redacted'];
  return [...failed, ...dlpProblems(results), ...answer];
}

// ---------------------------------------------------------------------------------------------
// Mutations: one feature of a template taken away.

interface Mutation {
  name: string;
  applies(doc: Document): boolean;
  apply(doc: Document): void;
}

function rulesOf(doc: Document): YAMLMap[] {
  const rules = doc.getIn(['spec', 'tool_rules']);
  return isSeq(rules) ? rules.items.filter(isMap) : [];
}

function removeFromRule(doc: Document, tool: string, key: string): void {
  const rule = rulesOf(doc).find((r) => r.get('tool') === tool);
  if (!rule?.delete(key)) throw new Error(`no ${key} in the rule for ${tool}`);
}

function present(doc: Document, key: string): boolean {
  const value = doc.getIn(['spec', key]);
  return isSeq(value) ? value.items.length > 0 : value !== undefined;
}

const switchAction = (from: string, to: string): Mutation => ({
  name: `every "${from}" rule becomes "${to}"`,
  applies: (doc) => rulesOf(doc).some((r) => r.get('action') === from),
  apply: (doc) => rulesOf(doc).filter((r) => r.get('action') === from).forEach((r) => r.set('action', to)),
});

const MUTATIONS: readonly Mutation[] = [
  switchAction('block', 'allow'),
  switchAction('ask', 'allow'),
  {
    name: 'the argument rules (allow_args, strict_args) are removed',
    applies: (doc) => rulesOf(doc).some((r) => r.has('allow_args')),
    apply: (doc) => {
      for (const rule of rulesOf(doc)) {
        rule.delete('allow_args');
        rule.delete('strict_args');
      }
    },
  },
  {
    name: 'the rate limits are removed',
    applies: (doc) => rulesOf(doc).some((r) => r.has('rate_limit')),
    apply: (doc) => rulesOf(doc).forEach((r) => r.delete('rate_limit')),
  },
  { name: 'protected_paths is removed', applies: (doc) => present(doc, 'protected_paths'), apply: (doc) => doc.deleteIn(['spec', 'protected_paths']) },
  { name: 'dlp is removed', applies: (doc) => present(doc, 'dlp'), apply: (doc) => doc.deleteIn(['spec', 'dlp']) },
  { name: 'the threat detectors on arguments are turned off', applies: (doc) => present(doc, 'x-silas-threats'), apply: (doc) => doc.setIn(['spec', 'x-silas-threats', 'arguments'], 'off') },
  { name: 'allowed_tools is emptied', applies: (doc) => present(doc, 'allowed_tools'), apply: (doc) => doc.setIn(['spec', 'allowed_tools'], doc.createNode([])) },
];

function fileOf(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

describe('the template catalogue', () => {
  it('lists each template once, with its two files beside the catalogue and nothing else there', () => {
    const ids = POLICY_TEMPLATES.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(['default', 'filesystem-read-only', 'filesystem-ask-writes', 'shell-with-approvals', 'github', 'browser-automation']);
    for (const template of POLICY_TEMPLATES) {
      expect(template.policyFile).toBe(`${template.id}.yaml`);
      expect(template.suiteFile).toBe(`${template.id}.suite.json`);
      expect(template.title.length).toBeGreaterThan(0);
      expect(template.server.length).toBeGreaterThan(0);
      expect(template.summary.length).toBeGreaterThan(0);
    }
    const beside = readdirSync(new URL('./', import.meta.url)).filter((f) => f.endsWith('.yaml') || f.endsWith('.json'));
    expect(beside.sort()).toEqual(POLICY_TEMPLATES.flatMap((t) => [t.policyFile, t.suiteFile]).sort());
  });

  it('reads a template by id, and names the templates for an unknown one', () => {
    const { policyText, suiteText } = readTemplate('github');
    expect(policyText).toMatch(/^apiVersion: aip\.io\/v1alpha2$/m);
    expect(JSON.parse(suiteText)).toHaveProperty('calls');
    expect(findTemplate('github')?.title).toBe('GitHub');
    expect(findTemplate('nope')).toBeUndefined();
    expect(() => readTemplate('nope')).toThrow('unknown policy template "nope"; the templates are default, filesystem-read-only, filesystem-ask-writes, shell-with-approvals, github, browser-automation');
  });

  it('docs/policy-templates.md describes every template', () => {
    const doc = readFileSync(new URL('../../../docs/policy-templates.md', import.meta.url), 'utf8');
    for (const template of POLICY_TEMPLATES) expect(doc).toContain(`\`${template.id}\``);
  });
});

describe.each(POLICY_TEMPLATES.map((t) => [t.id, t] as const))('template %s', (_id, template) => {
  const { policyText } = readTemplate(template.id);

  it('loads as aip.io/v1alpha2 without errors or warnings, named after its id', () => {
    const result = loadPolicyText(policyText, { sourcePath: fileOf(template.policyFile) });
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    expect(result.policy.apiVersion).toBe('aip.io/v1alpha2');
    expect(result.policy.name).toBe(template.id);
    expect(result.policy.mode).toBe('enforce');
    expect(result.policy.document).toMatchObject({ kind: 'AgentPolicy' });
  });

  it('explains itself: comments throughout, and no sandbox section that would stop `silas clients wrap` proposing one', () => {
    const comments = policyText.split('\n').filter((line) => line.trim().startsWith('#')).length;
    expect(comments).toBeGreaterThan(20);
    expect(load(policyText).sandbox).toBeNull();
  });

  it('has a suite that parses, with at least 8 cases of distinct names', () => {
    const suite = suiteOf(template);
    expect(suite.calls.length).toBeGreaterThanOrEqual(8);
    expect(new Set(suite.calls.map((c) => c.name)).size).toBe(suite.calls.length);
    expect(suite.description).toBeTruthy();
  });

  it('passes every case of its suite, in a made-up home and in the real one (as `silas policy test` runs it)', () => {
    const suite = suiteOf(template);
    expect(problems(policyText, suite, environment())).toEqual([]);
    expect(problems(policyText, suite, { homeDir: homedir(), cwd: process.cwd() })).toEqual([]);
  });

  it('has a suite that is not trivial: allowed, blocked and (where the template asks or limits) asked and rate-limited cases', () => {
    const policy = load(policyText);
    const suite = suiteOf(template);
    const expected = new Set(suite.calls.map((c) => c.expect));
    expect(expected).toContain('ALLOW');
    expect(expected).toContain('BLOCK');
    const rules = [...policy.toolRules.values()];
    if (rules.some((r) => r.action === 'ask')) {
      expect(expected).toContain('ASK');
      // The answers matter too: an approval lets the call through, anything else refuses it.
      expect(suite.calls.some((c) => c.context.user_response === 'approve' && c.expect === 'ALLOW')).toBe(true);
      expect(suite.calls.some((c) => (c.context.user_response === 'deny' || c.context.user_response === 'timeout') && c.expect === 'BLOCK')).toBe(true);
    }
    if (rules.some((r) => r.rateLimit !== null)) expect(expected).toContain('RATE_LIMITED');
    if (policy.protectedPaths.length > 0) {
      const env = environment();
      const results = runSuite(suite, policy, null, env);
      expect(results.some((r) => r.draft.errorCode === -32007)).toBe(true);
    }
    if (policy.dlp?.scanRequests) expect(suite.calls.some((c) => DLP_MARK.test(c.name))).toBe(true);
  });

  /*
   * Each feature the template has is taken away in turn; the suite must notice every time. The
   * broken copy still loads, so what fails is the behaviour, not the file.
   */
  const applicable = MUTATIONS.filter((m) => m.applies(parseDocument(policyText)));
  it.each(applicable.map((m) => [m.name, m] as const))('notices when %s', (_name, mutation) => {
    const doc = parseDocument(policyText);
    mutation.apply(doc);
    const broken = doc.toString();
    expect(broken).not.toBe(policyText);
    expect(() => load(broken)).not.toThrow();
    expect(problems(broken, suiteOf(template), environment()).length).toBeGreaterThan(0);
  });

  it('has at least four features the mutations above take away', () => {
    expect(applicable.length).toBeGreaterThanOrEqual(4);
  });
});

describe('a broken template fails its suite', () => {
  it('filesystem-read-only with write_file allowed instead of blocked: the write case fails', () => {
    const { policyText, suiteText } = readTemplate('filesystem-read-only');
    const broken = policyText.replace('    - tool: write_file\n      action: block\n', '    - tool: write_file\n      action: allow\n');
    expect(broken).not.toBe(policyText);
    const parsed = parseSuite(suiteText, 'filesystem-read-only.suite.json');
    if (!parsed.ok) throw new Error(parsed.problem);
    const failed = runSuite(parsed.suite, load(broken), load(policyText), environment()).filter((r) => !r.passed);
    expect(failed.map((r) => r.name)).toEqual(['write a file']);
    expect(failed[0]).toMatchObject({ expected: 'BLOCK', draft: { decision: 'ALLOW' }, current: { decision: 'BLOCK' }, changed: true });
  });

  it('github without its branch rule: pushing to main is no longer refused', () => {
    const { policyText } = readTemplate('github');
    const doc = parseDocument(policyText);
    removeFromRule(doc, 'push_files', 'allow_args');
    expect(problems(doc.toString(), suiteOf(findTemplate('github')!), environment())).toEqual(['push straight to main, even if approved: expected BLOCK, got ALLOW (Approved by the user)', 'a branch name that only starts like a topic branch: expected BLOCK, got ASK (Tool requires interactive approval)']);
  });
});
