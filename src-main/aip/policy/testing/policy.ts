import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { loadPolicyText, type PolicyError, type PolicyLoadOptions } from '../load.js';
import type { AgentPolicy } from '../types.js';

/** The upstream AIP vectors, beside the repository as in CI. */
const AIP_VECTORS = fileURLToPath(new URL('../../../../../shared/conformance/aip/', import.meta.url));

export interface VectorPolicy {
  file: string;
  id: string;
  text: string;
}

/** Every inline policy (any string value starting with "apiVersion:") of every suite under the levels given. */
export function vectorPolicies(levels: readonly string[]): VectorPolicy[] {
  const out: VectorPolicy[] = [];
  for (const level of levels) {
    for (const name of readdirSync(`${AIP_VECTORS}${level}`).filter((f) => f.endsWith('.yaml')).sort()) {
      const suite = parse(readFileSync(`${AIP_VECTORS}${level}/${name}`, 'utf8')) as { tests: Array<{ id: string }> };
      for (const test of suite.tests) {
        const texts: string[] = [];
        collect(test, texts);
        texts.forEach((text, index) => out.push({ file: `${level}/${name}`, id: texts.length > 1 ? `${test.id}#${index}` : test.id, text }));
      }
    }
  }
  return out;
}

function collect(value: unknown, out: string[]): void {
  if (Array.isArray(value)) for (const item of value) collect(item, out);
  else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) {
      if (typeof item === 'string' && item.startsWith('apiVersion:')) out.push(item);
      else collect(item, out);
    }
  }
}

/** A v1alpha2 policy named "test-policy" with the given lines under `spec:` (each indented by the caller). */
export function policyText(spec: string, options: { apiVersion?: string; metadata?: string } = {}): string {
  return `apiVersion: ${options.apiVersion ?? 'aip.io/v1alpha2'}\nkind: AgentPolicy\nmetadata:\n  name: test-policy\n${options.metadata ?? ''}spec:\n${spec}`;
}

export function loaded(text: string, options?: PolicyLoadOptions): AgentPolicy {
  const result = loadPolicyText(text, options);
  if (!result.ok) throw new Error(`expected the policy to load:\n${result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`).join('\n')}`);
  return result.policy;
}

export function failures(text: string, options?: PolicyLoadOptions): PolicyError[] {
  const result = loadPolicyText(text, options);
  expect(result.ok, 'expected the policy to be rejected').toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result).not.toHaveProperty('policy');
  return result.errors;
}

/** The single error of a rejected policy. */
export function onlyFailure(text: string, options?: PolicyLoadOptions): PolicyError {
  const errors = failures(text, options);
  expect(errors, JSON.stringify(errors, null, 2)).toHaveLength(1);
  return errors[0]!;
}

export function warningsOf(text: string, options?: PolicyLoadOptions): string[] {
  const result = loadPolicyText(text, options);
  if (!result.ok) throw new Error(`expected the policy to load: ${JSON.stringify(result.errors)}`);
  return result.warnings;
}
