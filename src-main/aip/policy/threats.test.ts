import { describe, expect, it } from 'vitest';
import { DEFAULT_THREATS } from './threats.js';
import { loaded, onlyFailure, policyText } from './testing/policy.js';

// spec.x-silas-threats (docs/threat-detection.md): defaults when absent, the section's values
// when present, and every mistake a load error at its line, saying what to write instead.

describe('spec.x-silas-threats', () => {
  it('is on with its defaults when the policy does not mention it', () => {
    expect(loaded(policyText('  allowed_tools: [a]\n')).threats).toEqual(DEFAULT_THREATS);
    expect(DEFAULT_THREATS).toMatchObject({ toolDefinitions: 'hold', results: 'block', arguments: 'block', chains: 'block', chainWindow: 20, chainRules: null });
  });

  it('compiles the section: actions, the window, chain rules (within defaulting to the window) and patterns (case-blind)', () => {
    const threats = loaded(
      policyText(
        [
          '  x-silas-threats:',
          '    results: annotate',
          '    arguments: ask',
          '    chain_window: 50',
          '    chain_rules:',
          '      - name: write then send',
          '        sequence: [file_write, network_send]',
          '        action: ask',
          '      - name: recon then execute',
          '        sequence: [recon, execute]',
          '        within: 5',
          '    patterns:',
          '      - name: our canary',
          '        regex: "canary-[0-9]+"',
          '        applies_to: results',
          '',
        ].join('\n'),
      ),
    ).threats;
    expect(threats).toMatchObject({ results: 'annotate', arguments: 'ask', chains: 'block', chainWindow: 50 });
    expect(threats.chainRules).toEqual([
      { name: 'write then send', sequence: ['file_write', 'network_send'], within: 50, action: 'ask' },
      { name: 'recon then execute', sequence: ['recon', 'execute'], within: 5, action: 'block' },
    ]);
    expect(threats.patterns[0]).toMatchObject({ name: 'our canary', appliesTo: 'results' });
    expect(threats.patterns[0]!.regex.test('CANARY-42')).toBe(true);
  });

  it('results may ask the person, as arguments and chains may', () => {
    expect(loaded(policyText('  x-silas-threats:\n    results: ask\n')).threats.results).toBe('ask');
  });

  it('a pattern that does not compile is a load error at its line', () => {
    const error = onlyFailure(policyText('  x-silas-threats:\n    patterns:\n      - name: broken\n        regex: "(?=lookahead)"\n'));
    expect(error).toMatchObject({ path: 'spec.x-silas-threats.patterns[0].regex', line: 9 });
    expect(error.message).toMatch(/RE2 syntax/);
  });

  it('an unknown call class, a one-step chain and an unknown action are load errors naming the field', () => {
    expect(onlyFailure(policyText('  x-silas-threats:\n    chain_rules:\n      - name: x\n        sequence: [secret_read, teleport]\n'))).toMatchObject({ path: 'spec.x-silas-threats.chain_rules[0].sequence[1]' });
    expect(onlyFailure(policyText('  x-silas-threats:\n    chain_rules:\n      - name: x\n        sequence: [secret_read]\n')).message).toMatch(/2 to 6 steps/);
    expect(onlyFailure(policyText('  x-silas-threats:\n    results: quarantine\n'))).toMatchObject({ path: 'spec.x-silas-threats.results' });
    expect(onlyFailure(policyText('  x-silas-threats:\n    result: block\n')).message).toMatch(/result/);
  });
});
