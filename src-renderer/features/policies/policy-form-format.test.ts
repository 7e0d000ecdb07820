import { describe, expect, it } from 'vitest';
import { agentClient, clientServer } from '../../testing/client-fixtures.js';
import { OTHER_PATH, POLICY_PATH, policyStatus } from '../../testing/policy-fixtures.js';
import { governedServer } from '../../testing/server-fixtures.js';
import { draftMode, makeRuleName, serverPolicyPath, standingArgs } from './policy-form-format.js';

describe('draftMode', () => {
  it('reads the mode off the draft, quoted or not, and nothing else', () => {
    expect(draftMode('spec:\n  mode: monitor\n')).toBe('monitor');
    expect(draftMode('spec:\n  mode: "enforce" # strict\n')).toBe('enforce');
    expect(draftMode('spec:\n  allowed_tools: [a]\n')).toBeNull();
    expect(draftMode('spec:\n  mode: sometimes\n')).toBeNull();
    expect(draftMode('spec:\n  error_mode: monitor\n')).toBeNull();
  });
});

describe('standingArgs', () => {
  it('parses the JSON object of a standing approval, and refuses anything else', () => {
    expect(standingArgs('{"path":"/tmp/a","n":2}')).toEqual({ path: '/tmp/a', n: 2 });
    expect(standingArgs('{}')).toEqual({});
    expect(standingArgs('[1]')).toBeNull();
    expect(standingArgs('null')).toBeNull();
    expect(standingArgs('{not json')).toBeNull();
  });
});

describe('serverPolicyPath', () => {
  const wrappedFiles = (policy: string) => agentClient({ servers: [clientServer('files', { wrapped: true, policy })] });

  it('takes the --policy of the client entries that wrap the server, when they agree', () => {
    expect(serverPolicyPath('files', [wrappedFiles(POLICY_PATH)], [], [])).toBe(POLICY_PATH);
    expect(serverPolicyPath('files', [wrappedFiles(POLICY_PATH), wrappedFiles(POLICY_PATH)], [], [])).toBe(POLICY_PATH);
    expect(serverPolicyPath('files', [wrappedFiles(POLICY_PATH), wrappedFiles(OTHER_PATH)], [], [])).toBeNull();
    expect(serverPolicyPath('web', [wrappedFiles(POLICY_PATH)], [], [])).toBeNull();
    expect(serverPolicyPath('files', [agentClient()], [], [])).toBeNull();
  });

  it('otherwise finds the one policy whose hash is in force for the server', () => {
    const servers = [governedServer('files', { policyHash: 'sha256:aa' })];
    expect(serverPolicyPath('files', [], servers, [policyStatus({ path: OTHER_PATH, hash: 'sha256:bb' }), policyStatus({ hash: 'sha256:aa' })])).toBe(POLICY_PATH);
    expect(serverPolicyPath('files', [], servers, [policyStatus({ hash: 'sha256:aa' }), policyStatus({ path: OTHER_PATH, hash: 'sha256:aa' })])).toBeNull();
    expect(serverPolicyPath('files', [], [governedServer('files', { policyHash: null })], [policyStatus({ hash: null })])).toBeNull();
  });
});

it('names the Make a rule button after the tool and server', () => {
  expect(makeRuleName({ tool: 'delete_file', server: 'files' })).toBe('Make a rule of delete_file on files');
});
