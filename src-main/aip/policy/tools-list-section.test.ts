import { describe, expect, it } from 'vitest';
import { AgentPolicySchema } from '../../../src-shared/policy/schema.js';
import { descriptionOf, schemaAt } from '../../../src-shared/policy/schema-kit.js';
import { loaded, onlyFailure, policyText } from './testing/policy.js';

// spec.x-silas-tools-list (src-shared/policy/schema-tools-list.ts, docs/mcp-proxy.md "What
// tools/list offers"): what the proxy offers in tools/list, loaded with the rest of the policy.

const section = (body: string) => policyText(`  x-silas-tools-list:\n${body}`);

describe('spec.x-silas-tools-list', () => {
  it('defaults to leaving blocked tools out and marking asking ones, when absent or partly given', () => {
    expect(loaded(policyText('  mode: enforce\n')).toolsList).toEqual({ blocked: 'omit', ask: 'mark' });
    expect(loaded(section('    blocked: list\n')).toolsList).toEqual({ blocked: 'list', ask: 'mark' });
    expect(loaded(section('    blocked: list\n    ask: plain\n')).toolsList).toEqual({ blocked: 'list', ask: 'plain' });
  });

  it('is part of the policy hash, so a signature covers it', () => {
    expect(loaded(section('    blocked: omit\n')).hash).not.toBe(loaded(section('    blocked: list\n')).hash);
  });

  it('is explained in the policy editor', () => {
    expect(descriptionOf(schemaAt(AgentPolicySchema, ['spec', 'x-silas-tools-list', 'blocked']))).toMatch(/omit.*list/s);
    expect(descriptionOf(schemaAt(AgentPolicySchema, ['spec', 'x-silas-tools-list', 'ask']))).toMatch(/mark.*plain/s);
  });

  it.each([
    ['    blocked: hide\n', 'spec.x-silas-tools-list.blocked', /expected one of "omit", "list", got "hide"/],
    ['    ask: true\n', 'spec.x-silas-tools-list.ask', /expected one of "mark", "plain"/],
    ['    blocked: Omit\n', 'spec.x-silas-tools-list.blocked', /did you mean "omit"/],
    ['    full: true\n', 'spec.x-silas-tools-list.full', /unknown key "full".*blocked, ask/],
  ])('refuses %j at its path, naming the allowed values', (body, path, message) => {
    const error = onlyFailure(section(body));
    expect(error.path).toBe(path);
    expect(error.message).toMatch(message);
    expect(error.line).toBeGreaterThan(0);
  });

  it('refuses a section that is not a mapping', () => {
    const error = onlyFailure(policyText('  x-silas-tools-list: full\n'));
    expect(error.path).toBe('spec.x-silas-tools-list');
    expect(error.message).toMatch(/expected a mapping/);
  });
});
