import { z } from 'zod';
import { closed, list, text, wholeNumber, type ApiVersion } from './schema-kit.js';

/*
 * spec.x-silas-threats: Silas's documented extension of the AgentPolicy for what rules cannot
 * say (docs/threat-detection.md). AIP spec 001 §10 names the threats — tool poisoning, prompt
 * injection, exfiltration — but its rules judge one call by its name and arguments; these
 * detectors judge what a tool definition says, what comes back from a server, how a command is
 * disguised, and the order of calls in a session. A policy without the section gets the
 * defaults below: every detector on, because a safety feature that must be switched on protects
 * nobody. Being part of the document, the section is covered by the policy hash and signature.
 */

export const THREATS_KEY = 'x-silas-threats';

/** The classes of calls a chain rule's sequence is written in (aip/detect/chains.ts assigns them). */
export const CALL_CLASSES = ['secret_read', 'env_read', 'file_read', 'file_write', 'execute', 'network_send', 'recon', 'persistence'] as const;

const RESULT_ACTIONS = ['block', 'redact', 'annotate', 'ask', 'off'] as const;
const REQUEST_ACTIONS = ['block', 'ask', 'off'] as const;

function chainRule(version: ApiVersion) {
  return closed(version, {
    name: text('a chain rule name', { nonEmpty: true, max: 64, missing: 'a name shown on the card and in the ledger' }).describe('Name of the chain, shown on the card and in the ledger. Required.'),
    sequence: list('call classes', z.enum(CALL_CLASSES), `a list of call classes (${CALL_CLASSES.join(', ')})`)
      .refine((steps) => steps.length >= 2 && steps.length <= 6, { error: 'a chain has 2 to 6 steps' })
      .describe(`The calls that make the chain, in order, each a class: ${CALL_CLASSES.join(', ')}. Other calls may come between them. Required.`),
    within: wholeNumber(2, 1000).optional().describe('How many of the session\'s most recent calls the chain must fit in. Default: the section\'s chain_window.'),
    action: z.enum(REQUEST_ACTIONS).default('block').describe('What the call completing the chain gets: block (default), ask, or off.'),
  });
}

function extraPattern(version: ApiVersion) {
  return closed(version, {
    name: text('a pattern name', { nonEmpty: true, max: 64, missing: 'the rule name recorded with a finding' }).describe('Rule name recorded with a finding. Required.'),
    regex: text('a regular expression (RE2 syntax)', { nonEmpty: true, missing: 'the injection pattern (RE2 syntax)' }).describe('Injection pattern in RE2 syntax, matched case-insensitively on normalised text. Required.'),
    applies_to: z.enum(['results', 'arguments', 'all']).default('all').describe('Where it is looked for: results (what servers return), arguments (what the agent sends) or all (default).'),
  });
}

export function threatsSchema(version: ApiVersion) {
  return closed(version, {
    tool_definitions: z.enum(['hold', 'allow'])
      .default('hold')
      .describe('hold (default): a tool whose definition (name, title, description, schemas, annotations, or the server\'s instructions) carries hidden instructions, shadowing, exfiltration or invisible characters is withheld from the client until the person approves it in Review, even at first sight. allow: it is offered and the finding only recorded.'),
    results: z.enum(RESULT_ACTIONS)
      .default('block')
      .describe('Injected instructions in what a server returns (tool results, resources, prompts, sampling and elicitation requests): block (default) answers with an error instead, redact replaces the offending text, annotate forwards it with a warning for the agent, ask holds an answer to the agent\'s request until the person lets it through in Review (denied: -32004; timed out or no control center: -32005; a server\'s own request or notification, which answers no request, is withheld as with block), off does not look.'),
    arguments: z.enum(REQUEST_ACTIONS)
      .default('block')
      .describe('Injected instructions and disguised shell commands in what the agent sends: block (default), ask, or off.'),
    chains: z.enum(REQUEST_ACTIONS)
      .default('block')
      .describe('The chain rules (chain_rules, or the built-in ones): block (default) or ask at the call that completes a chain, or off.'),
    chain_window: wholeNumber(2, 1000).default(20).describe('How many of the session\'s most recent calls a chain may span. Default: 20.'),
    chain_rules: list('chain rules', chainRule(version))
      .optional()
      .describe('Dangerous sequences of calls in one session. Default: the built-in rules (docs/threat-detection.md): a secret or the environment read then a network send, a write then its execution, reconnaissance then a secret read, persistence then a network send.'),
    patterns: list('injection patterns', extraPattern(version)).default(() => []).describe('Injection patterns of your own, added to the built-in ones.'),
  });
}

export type ThreatsDocument = z.output<ReturnType<typeof threatsSchema>>;
export type CallClass = (typeof CALL_CLASSES)[number];
