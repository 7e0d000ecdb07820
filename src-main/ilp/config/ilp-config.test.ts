import { describe, expect, it } from 'vitest';
import { parseIlpConfig } from './ilp-config.js';
import { checkCustomPrinciples, compilePrinciples } from '../constitution/custom-principles.js';

// HOME/ilp.yaml as the owner writes it (docs/ilp.md "Configuration"): a valid file, and each
// mistake reported with its line, column, field and fix, nothing of the file used.

const VALID = `version: 1
principles:
  - id: no_dosage_advice
    description: Specialists do not give medication doses
    severity: error
    domains: [medicine]
    forbidden_words: [dosage, mg per kg]
    suggested_action: Refer the person to a pharmacist
  - id: cite_money
    description: Money advice cites a source
    severity: warning
    domains: [finance]
    require_sources: true
forbidden_translations:
  - from: medicine
    to: finance
    reason: health is not priced here
specialists:
  - id: law-remote
    domain: law
    url: https://agents.example.net/ilp/law-agent
    credential_secret: law-agent-token
`;

function problemsOf(text: string) {
  const parsed = parseIlpConfig(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems;
}

describe('parseIlpConfig', () => {
  it('reads a valid configuration', () => {
    const parsed = parseIlpConfig(VALID);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.config.principles.map((p) => p.id)).toEqual(['no_dosage_advice', 'cite_money']);
    expect(parsed.config.forbidden_translations).toEqual([{ from: 'medicine', to: 'finance', reason: 'health is not priced here' }]);
    expect(parsed.config.specialists[0]).toMatchObject({ id: 'law-remote', domain: 'law' });
  });

  it('reads an empty configuration as the universal principles alone', () => {
    expect(parseIlpConfig('version: 1\n')).toEqual({ ok: true, config: { version: 1, principles: [], forbidden_translations: [], specialists: [] } });
  });

  it('names the line, column and field of each mistake, with the fix', () => {
    const problems = problemsOf(`version: 1
principles:
  - id: safety
    description: weaker safety
    severity: error
    forbidden_words: [x]
  - id: bad_pattern
    description: a pattern RE2 cannot run
    severity: fatal
    forbidden_pattern: "(a)\\\\1"
  - id: nothing_checked
    description: checks nothing
    severity: loud
specialists:
  - id: leak
    domain: law
    url: http://agents.example.net/ilp
    colour: blue
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line: 3, field: 'principles[0].id', message: expect.stringContaining('cannot be redefined') }),
        expect.objectContaining({ line: 10, field: 'principles[1].forbidden_pattern', message: expect.stringContaining('RE2') }),
        expect.objectContaining({ line: 13, field: 'principles[2].severity', message: expect.stringContaining('warning') }),
        expect.objectContaining({ line: 15, field: 'specialists[0]', message: expect.stringContaining('colour') }),
      ]),
    );
  });

  it('refuses plain http to another machine, credentials in the URL, and duplicate ids', () => {
    const problems = problemsOf(`version: 1
specialists:
  - id: a
    domain: law
    url: http://agents.example.net/ilp
  - id: a
    domain: law
    url: https://user:pw@agents.example.net/ilp
forbidden_translations:
  - from: law
    to: law
`);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [5, 'specialists[0].url'],
      [6, 'specialists[1].id'],
      [8, 'specialists[1].url'],
      [11, 'forbidden_translations[0].to'],
    ]);
    expect(problems[0]!.message).toContain('https://');
    expect(problems[2]!.message).toContain('silas secrets set');
  });

  it('reports YAML mistakes and a missing version', () => {
    expect(problemsOf('version: 1\nversion: 1\n')[0]).toMatchObject({ line: 2, message: expect.stringContaining('given twice') });
    expect(problemsOf('principles: []\n')[0]).toMatchObject({ line: 1, field: 'version', message: 'is missing; add it (version is 1)' });
    expect(problemsOf('- a\n')[0]).toMatchObject({ line: 1, message: expect.stringContaining('mapping') });
  });
});

describe('custom principles', () => {
  const parsed = parseIlpConfig(VALID);
  const principles = compilePrinciples(parsed.ok ? parsed.config.principles : []);

  it('finds forbidden words whole and case-blind, only for the domains named', () => {
    expect(checkCustomPrinciples(principles, 'medicine', { answer: 'The usual DOSAGE is two tablets.' })).toEqual([expect.objectContaining({ principle: 'no_dosage_advice', severity: 'error' })]);
    expect(checkCustomPrinciples(principles, 'medicine', { answer: 'Dosages vary; ask a pharmacist.', sources: ['x'] })).toEqual([]);
    expect(checkCustomPrinciples(principles, 'biology', { answer: 'The dosage is two tablets.' })).toEqual([]);
  });

  it('asks for sources where a principle requires them', () => {
    expect(checkCustomPrinciples(principles, 'finance', { answer: 'Save a tenth.' })).toEqual([expect.objectContaining({ principle: 'cite_money', severity: 'warning' })]);
    expect(checkCustomPrinciples(principles, 'finance', { answer: 'Save a tenth.', sources: ['budgeting-basics'] })).toEqual([]);
  });
});
