import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../policy/load.js';
import { applyFormChange, yamlScalar } from './policy-form.js';
import { tryCall } from '../trial/trial.js';

// The form view and standing approvals as rules (docs/policy-editor.md "Form view and standing
// approvals as rules"): each change touches only its own lines; comments, anchors, quoting and
// order elsewhere stay byte for byte.
const DOC = `# Policy for the files server — reviewed 2026-11-01
apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files   # owner: ops
spec:
  mode: monitor        # switch to enforce after a week
  allowed_tools:
    - read_file
    - &lister list_directory   # anchored on purpose
  protected_paths: ["~/.ssh", '~/.aws']

  tool_rules:
    # writes need a person
    - tool: write_file
      action: ask
      allow_args:
        path: "^/srv/data/.*$"
`;

/** Every line of `before` except those `changed` appears in `after`, in order. */
function onlyAdded(before: string, after: string): string[] {
  const out = after.split('\n');
  let i = 0;
  const added: string[] = [];
  for (const line of out) {
    if (line === before.split('\n')[i]) i += 1;
    else added.push(line);
  }
  expect(i).toBe(before.split('\n').length);
  return added;
}

describe('applyFormChange', () => {
  it('switches the mode in place, keeping its comment', () => {
    const { text } = applyFormChange(DOC, { kind: 'mode', mode: 'enforce' });
    expect(text).toBe(DOC.replace('mode: monitor        #', 'mode: enforce        #'));
  });

  it('adds to a block list after its last item and to a flow list before its bracket; the rest byte for byte', () => {
    const tool = applyFormChange(DOC, { kind: 'add_item', list: 'allowed_tools', value: 'search_files' }).text;
    expect(onlyAdded(DOC, tool)).toEqual(['    - search_files']);
    const path = applyFormChange(DOC, { kind: 'add_item', list: 'protected_paths', value: '~/.config/gcloud' }).text;
    expect(path).toBe(DOC.replace(`'~/.aws']`, `'~/.aws', ~/.config/gcloud]`));
    expect(applyFormChange(DOC, { kind: 'add_item', list: 'allowed_tools', value: 'read_file' }).text).toBe(DOC);
    expect(loadPolicyText(tool).ok && loadPolicyText(path).ok).toBe(true);
  });

  it("changes an existing rule's action in place, or appends a rule in the list's own indentation", () => {
    const changed = applyFormChange(DOC, { kind: 'tool_action', tool: 'write_file', action: 'block' }).text;
    expect(changed).toBe(DOC.replace('      action: ask', '      action: block'));
    const added = applyFormChange(DOC, { kind: 'tool_action', tool: 'delete_file', action: 'ask' }).text;
    expect(onlyAdded(DOC, added)).toEqual(['    - tool: delete_file', '      action: ask']);
    const loaded = loadPolicyText(added);
    expect(loaded.ok && loaded.policy.toolRules.get('delete_file')?.action).toBe('ask');
  });

  it('turns a standing approval into an allow rule pinned to its exact text arguments', () => {
    const { text, notes } = applyFormChange(DOC, { kind: 'rule_from_standing', tool: 'read_file', args: { path: '/srv/data/report (v2).txt', limit: 10 } });
    expect(onlyAdded(DOC, text)).toEqual(['    - tool: read_file', '      action: allow', '      allow_args:', '        path: "^\\\\/srv\\\\/data\\\\/report \\\\(v2\\\\)\\\\.txt$"']);
    expect(notes).toEqual([expect.stringContaining('argument "limit" is not text')]);
    // The pinned rule lets the approved call through, and the same tool on another file not.
    const loaded = loadPolicyText(applyFormChange(text, { kind: 'mode', mode: 'enforce' }).text);
    if (!loaded.ok) throw new Error(loaded.errors[0]!.message);
    const env = { homeDir: '/home/nobody', cwd: '/' };
    expect(tryCall(loaded.policy, { name: 'approved', method: 'tools/call', tool: 'read_file', args: { path: '/srv/data/report (v2).txt', limit: 10 } }, env).decision).toBe('ALLOW');
    expect(tryCall(loaded.policy, { name: 'other', method: 'tools/call', tool: 'read_file', args: { path: '/srv/data/report (v3).txt' } }, env).decision).toBe('BLOCK');
  });

  it('creates a missing list or rules section at the end of spec, and refuses what it cannot splice', () => {
    const bare = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: x\nspec:\n  mode: enforce\n';
    expect(applyFormChange(bare, { kind: 'add_item', list: 'allowed_tools', value: 'echo' }).text).toBe(`${bare}  allowed_tools:\n    - echo\n`);
    expect(applyFormChange(bare, { kind: 'tool_action', tool: 'echo', action: 'ask' }).text).toBe(`${bare}  tool_rules:\n    - tool: echo\n      action: ask\n`);
    expect(() => applyFormChange('spec: {mode: enforce}\n', { kind: 'mode', mode: 'monitor' })).toThrow(/edit this policy as text/);
    expect(() => applyFormChange('spec:\n  mode: [\n', { kind: 'mode', mode: 'monitor' })).toThrow(/not valid YAML/);
  });

  it('adds a DLP pattern: to an existing list, as a patterns: key of dlp:, or as a new dlp: section that blocks matches', () => {
    const pattern = { kind: 'dlp_pattern' as const, name: 'Slack token', regex: 'xox[bp]-[0-9A-Za-z-]{10,}' };
    const withDlp = `${DOC}  dlp:\n    scan_requests: true\n    patterns:\n      - name: "AWS key"\n        regex: "AKIA[0-9A-Z]{16}"\n`;
    expect(onlyAdded(withDlp, applyFormChange(withDlp, pattern).text)).toEqual(['      - name: "Slack token"', '        regex: "xox[bp]-[0-9A-Za-z-]{10,}"']);
    const noPatterns = `${DOC}  dlp:\n    scan_requests: true\n`;
    expect(onlyAdded(noPatterns, applyFormChange(noPatterns, pattern).text)).toEqual(['    patterns:', '      - name: "Slack token"', '        regex: "xox[bp]-[0-9A-Za-z-]{10,}"']);
    const fresh = applyFormChange(DOC, pattern).text;
    expect(onlyAdded(DOC, fresh)).toEqual(['  dlp:', '    scan_requests: true', '    on_request_match: block', '    patterns:', '      - name: "Slack token"', '        regex: "xox[bp]-[0-9A-Za-z-]{10,}"']);
    const loaded = loadPolicyText(applyFormChange(fresh, { kind: 'mode', mode: 'enforce' }).text);
    if (!loaded.ok) throw new Error(loaded.errors[0]!.message);
    const outcome = tryCall(loaded.policy, { name: 'leak', method: 'tools/call', tool: 'write_file', args: { path: '/srv/data/a', content: 'xoxb-1234567890abc' } }, { homeDir: '/home/nobody', cwd: '/' });
    expect(outcome).toMatchObject({ decision: 'BLOCK', dlp: { rules: ['Slack token'] } });
  });

  it('quotes scalars YAML would read as something else', () => {
    expect(yamlScalar('read_file')).toBe('read_file');
    expect(['true', 'null', '123', '-1', 'a: b', '#x', ' lead'].map(yamlScalar)).toEqual(['"true"', '"null"', '"123"', '"-1"', '"a: b"', '"#x"', '" lead"']);
  });
});
