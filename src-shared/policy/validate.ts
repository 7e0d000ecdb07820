import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { z } from 'zod';
import type { YamlPath } from '../yaml/positions.js';
import { AgentPolicySchema, API_VERSIONS, CURRENT_VERSION, policySchemaFor, type AgentPolicyDocument, type ApiVersion } from './schema.js';
import { mappingAt } from './schema-kit.js';
import { byPosition, describeNode, formatPolicyPath, suggest, type PolicyError, type PolicySource, type PolicyWarning } from './source.js';
import { policyWarnings } from './warnings.js';

/*
 * Checks a parsed policy document against the schema and reports each problem in the loader's
 * words, at its YAML path, line and column. The schema says what it expected; this file adds
 * what the YAML holds ("got the number 1.0", a near miss, "write [] for an empty list"), which
 * only the YAML node can tell. Everything is reported at once, never just the first problem.
 */

export type PolicyValidation =
  | { ok: true; version: ApiVersion; document: AgentPolicyDocument; warnings: PolicyWarning[] }
  | { ok: false; errors: PolicyError[] };

/** Validates `json`, the document of `source` as `toJS` built it (aliases expanded). */
export function validatePolicyDocument(source: PolicySource, json: Record<string, unknown>): PolicyValidation {
  // Keys become object keys, so `1:` and `"1":` would both read as "1"; refuse the former first.
  const keyErrors = nonStringKeys(source);
  if (keyErrors.length > 0) return { ok: false, errors: keyErrors };

  // apiVersion first: it decides which keys exist (§9.3: unknown versions are rejected). A
  // missing one is reported with the rest checked as the current version, so that `silas
  // policy validate` lists every error at once.
  const errors: PolicyError[] = [];
  let version: ApiVersion = CURRENT_VERSION;
  let input = json;
  if (!Object.hasOwn(json, 'apiVersion')) {
    errors.push(
      source.error(['apiVersion'], `required key "apiVersion" is missing; expected ${API_VERSIONS.join(' or ')} (the rest was checked as ${CURRENT_VERSION}); add "apiVersion: ${CURRENT_VERSION}" as the first line`),
    );
    input = { ...json, apiVersion: CURRENT_VERSION };
  } else if (!(API_VERSIONS as readonly unknown[]).includes(json.apiVersion)) {
    const got = typeof json.apiVersion === 'string' ? `"${json.apiVersion}"` : describeNode(source.locate(['apiVersion']).value);
    return { ok: false, errors: [source.error(['apiVersion'], `unknown apiVersion ${got}; expected ${API_VERSIONS.join(' or ')} (§9.3: documents with an unknown apiVersion are rejected)`)] };
  } else {
    version = json.apiVersion as ApiVersion;
  }

  const checked = policySchemaFor(version).safeParse(input);
  if (!checked.success) errors.push(...issuesErrors(source, version, checked.error.issues));
  // A v1alpha1 document that passed has no v1alpha2 field, so the current schema accepts it too
  // and supplies the v1alpha2 defaults.
  // For the current version that schema is AgentPolicySchema itself: its parse stands.
  const parsed = errors.length > 0 ? null : version === CURRENT_VERSION ? (checked as ReturnType<typeof AgentPolicySchema.safeParse>) : AgentPolicySchema.safeParse(input);
  if (parsed && !parsed.success) errors.push(...issuesErrors(source, version, parsed.error.issues));
  if (!parsed?.success) return { ok: false, errors: byPosition(errors) };
  return { ok: true, version, document: parsed.data, warnings: byPosition(policyWarnings(parsed.data, source)) };
}

/** Unknown keys first: a misspelt key reads best before the "required key is missing" it causes. */
function issuesErrors(source: PolicySource, version: ApiVersion, issues: readonly z.core.$ZodIssue[]): PolicyError[] {
  const unknownFirst = [...issues].sort((a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'));
  return unknownFirst.flatMap((issue) => issueErrors(source, version, issue));
}

function issueErrors(source: PolicySource, version: ApiVersion, issue: z.core.$ZodIssue): PolicyError[] {
  const path = issue.path as YamlPath;
  const location = source.locate(path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => source.error([...path, key], unknownKeyMessage(version, path, key), 'key'));
    case 'invalid_type':
      if (location.depth < path.length) return [source.error(path, `required key "${String(path.at(-1))}" is missing; ${issue.message}`)];
      return [source.error(path, typeMismatch(issue.message, issue.expected, location.value))];
    case 'invalid_value':
      return [source.error(path, notOneOf(issue.values.map(String), location.value))];
    default:
      return [source.error(path, issue.message, issue.code === 'custom' && issue.params?.at === 'key' ? 'key' : 'value')];
  }
}

function unknownKeyMessage(version: ApiVersion, path: YamlPath, key: string): string {
  // Keys are listed from the current schema: a v1alpha1 document gets a precise message for
  // a v1alpha2 field, and the full list of keys that exist.
  const mapping = mappingAt(AgentPolicySchema, path);
  if (version !== CURRENT_VERSION && mapping?.keys.includes(key)) {
    return `"${key}" is an ${CURRENT_VERSION} field, but this document declares apiVersion ${version}; change apiVersion to ${CURRENT_VERSION} to use it`;
  }
  const hint = mapping && Object.hasOwn(mapping.hints, key) ? mapping.hints[key] : undefined;
  if (hint) return hint;
  const known = mapping?.keys ?? [];
  const close = suggest(key, known);
  const where = path.length === 0 ? 'at the top level' : `in ${formatPolicyPath(path)}`;
  return `unknown key "${key}" ${where}${close ? ` (did you mean "${close}"?)` : ''}; expected one of: ${known.join(', ')}`;
}

/** "expected a tool name" → "expected a tool name, got the number 1 (write it in quotes: "1")". */
function typeMismatch(expected: string, type: string, node: unknown): string {
  const empty = isScalar(node) && node.value === null;
  let message = `${expected}${type === 'array' && empty ? ' (write [] for an empty list)' : ''}, got ${describeNode(node)}`;
  if (type === 'string' && isScalar(node) && (typeof node.value === 'number' || typeof node.value === 'boolean')) {
    message += ` (write it in quotes: "${String(node.source ?? node.value)}")`;
  }
  if (type === 'boolean' && isScalar(node) && typeof node.value === 'string' && /^(yes|no|on|off|y|n|true|false)$/i.test(node.value)) {
    message += ' (YAML 1.2: write true or false, unquoted)';
  }
  return message;
}

function notOneOf(allowed: readonly string[], node: unknown): string {
  const list = allowed.map((value) => `"${value}"`).join(', ');
  if (!isScalar(node) || typeof node.value !== 'string') return `expected one of ${list}, got ${describeNode(node)}`;
  const close = suggest(node.value, allowed);
  return `expected one of ${list}, got "${node.value}"${close ? ` (did you mean "${close}"?)` : ''}`;
}

/** Mapping keys that are not strings, each at its key; anchored content is visited where it is defined. */
function nonStringKeys(source: PolicySource): PolicyError[] {
  const errors: PolicyError[] = [];
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: source.doc.contents, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isAlias(pair.key) ? pair.key.resolve(source.doc) : pair.key;
        if (isScalar(key) && typeof key.value === 'string') {
          stack.push({ node: pair.value, path: [...path, key.value] });
        } else {
          const quote = isScalar(key) && key.value !== null ? ' (quote it)' : '';
          errors.push({ path: formatPolicyPath(path), ...source.at(pair.key ?? node), message: `expected a string key, got ${describeNode(key)}${quote}` });
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => stack.push({ node: item, path: [...path, index] }));
    }
  }
  return byPosition(errors);
}
