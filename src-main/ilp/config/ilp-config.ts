import { isMap, LineCounter, parseDocument } from 'yaml';
import RE2 from 're2';
import { z } from 'zod';
import { locateYamlPath, nodeStart, yamlPosition } from '../../../src-shared/yaml/positions.js';
import { AGENT_ID } from '../agents/agent.js';
import { remoteUrlProblem } from '../agents/remote-agent.js';
import { UNIVERSAL_PRINCIPLES } from '../constitution/custom-principles.js';

/*
 * HOME/ilp.yaml: what the owner adds to ILP's constitution (docs/ilp.md "Configuration"): custom
 * principles (spec 004 §9.3 item 1), translations between domains no agent may make (§3.2
 * TRANSLATE, "domain boundaries"), and specialists on other machines (Appendix B Level 3,
 * "distributed agent federation"). Read like a policy: every problem with its line, column, field
 * and fix, and nothing of a file with a problem is used.
 */

const DOMAIN = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'a domain is lower case letters, digits, _ and -, starting with a letter (e.g. finance)');
const TEXT = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);

const PrincipleSpec = z
  .object({
    id: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a principle id is lower case letters, digits and _, starting with a letter (e.g. no_dosage_advice)')
      .refine((id) => !(UNIVERSAL_PRINCIPLES as readonly string[]).includes(id), { message: `the six universal principles (${UNIVERSAL_PRINCIPLES.join(', ')}) cannot be redefined; choose another id` }),
    description: TEXT(500),
    severity: z.enum(['warning', 'error', 'fatal'], { message: 'severity is warning (the answer passes with 207), error or fatal (the answer is refused with 403)' }),
    /** The answering agent's domains it applies to; every domain when absent. */
    domains: z.array(DOMAIN).min(1).max(100).optional(),
    /** Words or phrases an answer may not contain, matched whole and case-blind. */
    forbidden_words: z.array(TEXT(100)).min(1).max(200).optional(),
    /** An RE2 pattern an answer may not match (case-blind). */
    forbidden_pattern: TEXT(500)
      .refine((pattern) => compiles(pattern), { message: 'is not a valid RE2 pattern (no backreferences or lookaround); test it, or use forbidden_words' })
      .optional(),
    /** The answer must cite at least one source. */
    require_sources: z.boolean().optional(),
    suggested_action: TEXT(300).optional(),
  })
  .strict()
  .refine((p) => p.forbidden_words !== undefined || p.forbidden_pattern !== undefined || p.require_sources === true, {
    message: 'a principle checks something: give forbidden_words, forbidden_pattern or require_sources: true',
  });

const ForbiddenTranslation = z.object({ from: DOMAIN, to: DOMAIN, reason: TEXT(300).optional() }).strict();

const RemoteSpecialist = z
  .object({
    id: z
      .string()
      .regex(AGENT_ID, 'an agent id is lower case letters, digits and -, starting with a letter or digit (e.g. law-remote)')
      .refine((id) => id !== 'meta-agent', { message: 'meta-agent is the runtime\'s own; choose another id' }),
    domain: DOMAIN,
    url: z.string().url('must be a URL such as https://agents.example.net/ilp/law-agent').max(2000),
    description: TEXT(300).optional(),
    /** A keyring secret (`silas secrets set NAME --origin ORIGIN`) sent as the bearer credential. */
    credential_secret: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'a secret name is letters, digits, ., _ and -').optional(),
    timeout_ms: z.number().int().min(1000).max(600_000).optional(),
  })
  .strict();

const IlpConfigSchema = z
  .object({
    version: z.literal(1, { message: 'version is 1' }),
    principles: z.array(PrincipleSpec).max(50).default([]),
    forbidden_translations: z.array(ForbiddenTranslation).max(500).default([]),
    specialists: z.array(RemoteSpecialist).max(50).default([]),
  })
  .strict()
  .superRefine((config, ctx) => {
    duplicates(config.principles.map((p) => p.id), (i) => ctx.addIssue({ code: 'custom', path: ['principles', i, 'id'], message: 'this id is used by an earlier principle; ids are unique' }));
    duplicates(config.specialists.map((s) => s.id), (i) => ctx.addIssue({ code: 'custom', path: ['specialists', i, 'id'], message: 'this id is used by an earlier specialist; ids are unique' }));
    config.forbidden_translations.forEach((t, i) => {
      if (t.from === t.to) ctx.addIssue({ code: 'custom', path: ['forbidden_translations', i, 'to'], message: 'a translation is between two different domains' });
    });
    config.specialists.forEach((s, i) => {
      const problem = remoteUrlProblem(s.url);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['specialists', i, 'url'], message: problem });
    });
  });
export type IlpConfig = z.infer<typeof IlpConfigSchema>;
export type RemoteSpecialistSpec = IlpConfig['specialists'][number];

/** What a home without HOME/ilp.yaml has: the six universal principles alone. */
export const EMPTY_ILP_CONFIG: IlpConfig = { version: 1, principles: [], forbidden_translations: [], specialists: [] };

export interface IlpConfigProblem {
  line: number;
  column: number;
  field: string;
  message: string;
}

export type ParsedIlpConfig = { ok: true; config: IlpConfig } | { ok: false; problems: IlpConfigProblem[] };

/** The most a configuration file holds (a few hundred entries are a few tens of KiB). */
export const MAX_ILP_CONFIG_BYTES = 256 * 1024;

/** Reads the text of an ILP configuration: the configuration, or every problem with its place. */
export function parseIlpConfig(text: string): ParsedIlpConfig {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_ILP_CONFIG_BYTES) return { ok: false, problems: [{ line: 1, column: 1, field: '(file)', message: `the file is ${bytes} bytes; an ILP configuration holds at most ${MAX_ILP_CONFIG_BYTES}` }] };
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, version: '1.2', schema: 'core', prettyErrors: false });
  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) {
    return {
      ok: false,
      problems: yamlProblems.map((p) => ({ ...yamlPosition(lines, p.pos[0]), field: '(file)', message: p.code === 'DUPLICATE_KEY' ? 'this key is given twice; keep one' : `invalid YAML: ${p.message.split('\n')[0]}` })),
    };
  }
  if (!isMap(doc.contents)) return { ok: false, problems: [{ line: 1, column: 1, field: '(file)', message: 'an ILP configuration is a mapping: version: 1, then principles:, forbidden_translations: and specialists:' }] };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ line: 1, column: 1, field: '(file)', message: `the YAML could not be resolved (${(error as Error).message}); write the values out instead of aliasing them` }] };
  }
  const parsed = IlpConfigSchema.safeParse(data);
  if (parsed.success) return { ok: true, config: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const location = locateYamlPath(doc, issue.path);
    const whole = location.depth === issue.path.length;
    const place = whole ? nodeStart(location.node) : (nodeStart(location.key) ?? nodeStart(location.node));
    const field = issue.path.length === 0 ? '(file)' : issue.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('').replace(/^\./, '');
    return { ...yamlPosition(lines, place ?? 0), field, message: issueText(issue, whole) };
  });
  return { ok: false, problems: problems.sort((a, b) => a.line - b.line || a.column - b.column) };
}

function issueText(issue: z.ZodIssue, present: boolean): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}; remove ${issue.keys.length > 1 ? 'them' : 'it'} (see docs/ilp.md "Configuration")`;
  if (!present) return `is missing; add it (${issue.message})`;
  return issue.message;
}

function duplicates(values: readonly string[], report: (index: number) => void): void {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    if (seen.has(value)) report(i);
    seen.add(value);
  });
}

function compiles(pattern: string): boolean {
  try {
    new RE2(pattern, 'iu');
    return true;
  } catch {
    return false;
  }
}
