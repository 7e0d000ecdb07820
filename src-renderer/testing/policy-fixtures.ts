import type { Envelope } from '../../src-shared/contract/index.js';
import type { TrialOutcome } from '../store/policy-bench-rows.js';
import type { PolicyDiagnostic, PolicyFileStatus, PolicyVersion } from '../store/policy-editor-state.js';
import { FakeTransport } from './fake-transport.js';

export const POLICY_PATH = '/home/ada/.silas/policies/files.yaml';
export const OTHER_PATH = '/home/ada/project/web.yaml';
const OWNER = 'ed25519:9f2c1be07a51d4c3e8f0aa11bb22cc33';

export const VALID_POLICY = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  allowed_tools: [read_file]\n';
/** VALID_POLICY with a misspelt key on line 6, column 3. */
export const TYPO_POLICY = VALID_POLICY.replace('allowed_tools', 'alowed_tools');

/** A stand-in for a file's SHA-256: 64 hex characters that differ for different texts. */
export function fakeSha(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0').repeat(8);
}

export function policyStatus(overrides: Partial<PolicyFileStatus> = {}): PolicyFileStatus {
  return {
    path: POLICY_PATH,
    exists: true,
    loads: true,
    signature: 'owner',
    hash: 'sha256:aa',
    modifiedOutside: false,
    versions: 1,
    textSha256: fakeSha(VALID_POLICY),
    inForce: true,
    inForceSeq: null,
    ...overrides,
  };
}

export function policyVersion(seq: number, overrides: Partial<PolicyVersion> = {}): PolicyVersion {
  return { id: seq * 10, seq, policyHash: `sha256:${seq}`, signer: OWNER, action: 'save', savedAt: `2026-01-0${Math.min(seq, 9)}T10:00:00.000Z`, corrupt: false, ...overrides };
}

export function outcome(decision: TrialOutcome['decision'], overrides: Partial<TrialOutcome> = {}): TrialOutcome {
  return { decision, reason: `${decision} by rule`, rule: null, failedArg: null, errorCode: null, dlp: { action: 'none', rules: [] }, rateLimitRemaining: null, ...overrides };
}

export const typoDiagnostic: PolicyDiagnostic = {
  path: 'spec.alowed_tools',
  line: 6,
  column: 3,
  message: 'unknown key "alowed_tools" in spec (did you mean "allowed_tools"?)',
  severity: 'error',
};

/** What the fake loader says of a text: the misspelt key is an error, "# warn" a warning. */
function diagnose(text: string): PolicyDiagnostic[] {
  const lines = text.split('\n');
  const out: PolicyDiagnostic[] = [];
  lines.forEach((line, index) => {
    const typo = line.indexOf('alowed_tools');
    if (typo >= 0) out.push({ ...typoDiagnostic, line: index + 1, column: typo + 1 });
    if (line.includes('# warn')) out.push({ path: 'spec', line: index + 1, column: 1, message: 'a warning', severity: 'warning' });
  });
  return out;
}

/** Two templates of the gallery, as `policies.templates` lists them. */
export const POLICY_TEMPLATES = [
  {
    id: 'filesystem-read-only',
    title: 'Filesystem, read-only',
    server: 'A filesystem server',
    summary: 'Reads are allowed; every write is blocked.',
    policyText: 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: filesystem-read-only\nspec:\n  # reads only\n  allowed_tools: [read_file]\n',
    cases: 19,
  },
  {
    id: 'github',
    title: 'GitHub',
    server: 'The GitHub MCP server',
    summary: 'Reading is allowed; writes ask.',
    policyText: 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: github\nspec:\n  allowed_tools: [get_issue]\n',
    cases: 24,
  },
];

const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });
const fail = (code: string, message: string): Envelope<never> => ({ ok: false, error: { code, message } });

interface StoredVersion extends PolicyVersion {
  path: string;
  text: string;
}

/**
 * The policy library of a runtime, in memory: files on a fake disk, saved versions, and the
 * policies.* calls answered as the real router would (a save signs, refuses a stale base).
 */
export class PolicyDisk {
  readonly files = new Map<string, string>();
  readonly versions: StoredVersion[] = [];

  constructor(files: Record<string, string> = { [POLICY_PATH]: VALID_POLICY }) {
    for (const [path, text] of Object.entries(files)) this.files.set(path, text);
  }

  /** Signing appends the signature line, as the owner key would. */
  static sign(text: string): string {
    return text.endsWith('# signed\n') ? text : `${text}# signed\n`;
  }

  /** Keeps `text` as the newest version of `path` (and writes it), as a save would. */
  keep(path: string, text: string, action: PolicyVersion['action'] = 'save', overrides: Partial<PolicyVersion> = {}): StoredVersion {
    const seq = this.versions.filter((v) => v.path === path).length + 1;
    const version = { ...policyVersion(seq, { action }), id: this.versions.length + 1, ...overrides, path, text };
    this.versions.push(version);
    this.files.set(path, text);
    return version;
  }

  status(path: string): PolicyFileStatus {
    const text = this.files.get(path);
    const mine = this.versions.filter((v) => v.path === path);
    const latest = mine.at(-1);
    return policyStatus({
      path,
      exists: text !== undefined,
      loads: text !== undefined && diagnose(text).every((d) => d.severity !== 'error'),
      signature: text?.endsWith('# signed\n') ? 'owner' : 'unsigned',
      modifiedOutside: latest?.text !== text,
      versions: mine.length,
      textSha256: text === undefined ? null : fakeSha(text),
      // As the runtime: the file is in force when signed and the last saved; else the last saved version stays.
      inForce: text?.endsWith('# signed\n') === true && latest?.text === text,
      inForceSeq: text?.endsWith('# signed\n') === true && latest?.text === text ? null : (latest?.seq ?? null),
    });
  }

  private view({ path: _path, text: _text, ...version }: StoredVersion): PolicyVersion {
    return version;
  }

  private saved(version: StoredVersion) {
    return ok({ status: this.status(version.path), version: this.view(version) });
  }

  /** Registers the policies.* calls on `transport`. */
  serve(transport: FakeTransport = new FakeTransport('connected')): FakeTransport {
    const draftOutcome = (text: string) => outcome(text.includes('block: true') ? 'BLOCK' : 'ALLOW', { rule: 'allowed_tools' });
    return transport
      .handle('policies.list', () => ok({ policies: [...this.files.keys()].sort().map((path) => this.status(path)) }))
      .handle('policies.read', (args) => {
        const { path } = args as { path: string };
        return ok({ status: this.status(path), text: this.files.get(path) ?? '' });
      })
      .handle('policies.validate', (args) => {
        const diagnostics = diagnose((args as { text: string }).text);
        const loads = diagnostics.every((d) => d.severity !== 'error');
        return ok({ ok: loads, diagnostics, hash: loads ? 'sha256:draft' : null, took_ms: 1.25 });
      })
      .handle('policies.save', (args) => {
        const { path, text, expected_sha256 } = args as { path: string; text: string; expected_sha256: string | null };
        const onDisk = this.files.get(path);
        if ((onDisk === undefined ? null : fakeSha(onDisk)) !== expected_sha256) return fail('E_CONFLICT', `${path} changed on disk since it was opened`);
        if (diagnose(text).some((d) => d.severity === 'error')) return fail('E_INVALID_ARGS', 'the draft does not load');
        return this.saved(this.keep(path, PolicyDisk.sign(text)));
      })
      .handle('policies.history', (args) => {
        const { path, limit = 100 } = args as { path: string; limit?: number };
        return ok({ versions: this.versions.filter((v) => v.path === path).reverse().slice(0, limit).map((v) => this.view(v)) });
      })
      .handle('policies.version', (args) => {
        const version = this.versions.find((v) => v.id === (args as { id: number }).id);
        return version ? ok({ version: this.view(version), text: version.text }) : fail('E_NOT_FOUND', 'no such version');
      })
      .handle('policies.restore', (args) => {
        const version = this.versions.find((v) => v.id === (args as { id: number }).id);
        if (!version) return fail('E_NOT_FOUND', 'no such version');
        if (version.corrupt) return fail('E_CORRUPT', `version ${version.seq} is corrupt`);
        return this.saved(this.keep(version.path, version.text, 'restore'));
      })
      .handle('policies.adopt', (args) => {
        const { path } = args as { path: string };
        return this.saved(this.keep(path, PolicyDisk.sign(this.files.get(path) ?? ''), 'adopt'));
      })
      .handle('policies.try', (args) => {
        const { text } = args as { text: string };
        return ok({ draft: draftOutcome(text), current: outcome('ALLOW', { rule: 'allowed_tools' }) });
      })
      .handle('policies.replay', (args) => {
        const { text, server } = args as { text: string; server: string };
        const call = (index: number, tool: string) => ({ index, ts: '2026-01-01T10:00:00.000Z', server, tool, args: { path: `/tmp/${index}` }, recorded: 'ALLOW' });
        const draft = draftOutcome(text);
        return ok({
          scanned: 2,
          results: [
            { call: call(1, 'read_file'), draft, current: outcome('ALLOW'), changed: draft.decision !== 'ALLOW' },
            { call: call(2, 'list_dir'), draft: outcome('ALLOW'), current: outcome('ALLOW'), changed: false },
          ],
        });
      })
      .handle('policies.suite', (args) => {
        const { path } = args as { path: string };
        return ok({
          suitePath: path.replace(/\.yaml$/, '.suite.json'),
          results: [
            { name: 'reads are allowed', expected: 'ALLOW', draft: outcome('ALLOW'), current: outcome('ALLOW'), passed: true, changed: false },
            { name: 'writes ask', expected: 'ASK', draft: outcome('ALLOW', { rule: 'allowed_tools' }), current: outcome('ASK', { rule: 'tool_rules[write_file] (ask)' }), passed: false, changed: true },
          ],
        });
      })
      .handle('policies.templates', () => ok({ templates: POLICY_TEMPLATES }))
      .handle('policies.create', (args) => {
        const { name, template } = args as { name: string; template: string };
        const chosen = POLICY_TEMPLATES.find((t) => t.id === template);
        if (!chosen) return fail('E_INVALID_ARGS', `template: there is no template "${template}"`);
        const path = `/home/ada/.silas/policies/${name}.yaml`;
        if (this.files.has(path)) return fail('E_CONFLICT', `${path} already exists; open that policy from the list, or choose another name`);
        const version = this.keep(path, PolicyDisk.sign(chosen.policyText.replace(/name: \S+/, `name: ${name}`)));
        return ok({ status: this.status(path), version: this.view(version), suitePath: path.replace(/\.yaml$/, '.suite.json') });
      });
  }
}
