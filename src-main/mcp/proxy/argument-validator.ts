import RE2 from 're2';
import type { DlpArgumentValidator } from '../../aip/dlp/engine.js';

/*
 * A deliberately small check of redacted tool arguments against the tool's announced
 * inputSchema, for DLP `on_request_match: redact` (§3.6.4): a redaction marker that breaks a
 * `pattern`, `enum`, `format`-free length or type constraint of a top-level property is a
 * redaction failure, handled as `on_redaction_failure` says. It is not a JSON Schema validator:
 * what it does not understand it does not reject. Patterns run through RE2 (linear time).
 */

const patternCache = new Map<string, RE2 | null>();

function compile(pattern: string): RE2 | null {
  if (!patternCache.has(pattern)) {
    let regex: RE2 | null = null;
    try {
      regex = new RE2(pattern, 'u');
    } catch {
      regex = null; // an ECMAScript-only construct: not checked
    }
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, regex);
  }
  return patternCache.get(pattern) ?? null;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function checkValue(name: string, value: unknown, schema: Record<string, unknown>): string | null {
  const type = schema.type;
  const actual = typeOf(value);
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : null;
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return `${name}: expected ${types.join(' or ')}, got ${actual}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) return `${name}: not one of the allowed values`;
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string') {
      const regex = compile(schema.pattern);
      if (regex && !regex.test(value)) return `${name}: does not match ${schema.pattern}`;
    }
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return `${name}: longer than ${schema.maxLength}`;
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return `${name}: shorter than ${schema.minLength}`;
  }
  return null;
}

/** A validator for `dlp.scanRequest` from a tool's inputSchema; null schema accepts anything. */
export function argumentValidator(inputSchema: unknown): DlpArgumentValidator | undefined {
  if (inputSchema === null || typeof inputSchema !== 'object') return undefined;
  const properties = (inputSchema as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  return (redacted) => {
    if (redacted === null || typeof redacted !== 'object' || Array.isArray(redacted)) return null;
    for (const [name, value] of Object.entries(redacted as Record<string, unknown>)) {
      const schema = (properties as Record<string, unknown>)[name];
      if (schema === null || typeof schema !== 'object') continue;
      const problem = checkValue(name, value, schema as Record<string, unknown>);
      if (problem) return problem;
    }
    return null;
  };
}
