import type RE2 from 're2';
import type { ThreatsDocument } from '../../../src-shared/policy/schema.js';
import type { YamlPath } from '../../../src-shared/yaml/positions.js';
import type { ThreatsConfig } from './types.js';

/** Compiles one regex at a path of the document, recording an error there when it does not compile. */
type CompileAt = (path: YamlPath, pattern: string, what: string) => RE2 | null;

/** What a policy without `spec.x-silas-threats` gets: every detector on (docs/threat-detection.md). */
export const DEFAULT_THREATS: ThreatsConfig = {
  toolDefinitions: 'hold',
  results: 'block',
  arguments: 'block',
  chains: 'block',
  chainWindow: 20,
  chainRules: null,
  patterns: [],
};

/**
 * `spec.x-silas-threats` compiled. The policy's own injection patterns are matched case-blind on
 * normalised text, like the built-in ones, so `(?i)` is added here rather than asked of every
 * author; a pattern that does not compile is a load error at its line.
 */
export function compileThreats(section: ThreatsDocument | undefined, key: string, compile: CompileAt): ThreatsConfig {
  if (!section) return DEFAULT_THREATS;
  const patterns: ThreatsConfig['patterns'] = [];
  section.patterns.forEach((pattern, index) => {
    const regex = compile(['spec', key, 'patterns', index, 'regex'], `(?i)${pattern.regex}`, `injection pattern "${pattern.name}"`);
    if (regex) patterns.push({ name: pattern.name, pattern: pattern.regex, regex, appliesTo: pattern.applies_to });
  });
  return {
    toolDefinitions: section.tool_definitions,
    results: section.results,
    arguments: section.arguments,
    chains: section.chains,
    chainWindow: section.chain_window,
    chainRules: section.chain_rules?.map((rule) => ({ name: rule.name, sequence: rule.sequence, within: rule.within ?? section.chain_window, action: rule.action })) ?? null,
    patterns,
  };
}
