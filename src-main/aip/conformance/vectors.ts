import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/** One test of an upstream AIP conformance suite (see ../shared/conformance/aip/README.md). */
export interface ConformanceVector {
  id: string;
  description: string;
  /** Inline AgentPolicy YAML, or null for "no policy loaded". */
  policy: string | null;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

export interface ConformanceSuite {
  file: string;
  name: string;
  /** `spec_version` (v1alpha1 suites) or `api_version` (v1alpha2 suites). */
  version: string;
  /** `conformance_level` when the suite declares one (identity, server). */
  level: string | null;
  tests: ConformanceVector[];
}

/** YAML files under each path (files as given, folders recursively), in a stable order. */
export function collectSuiteFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  const visit = (path: string) => {
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else if (/\.ya?ml$/i.test(path)) {
      files.push(path);
    }
  };
  for (const path of paths) visit(path);
  return files;
}

export function readSuite(file: string, base: string): ConformanceSuite {
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  if (!doc || !Array.isArray(doc.tests)) throw new Error(`${file}: not a conformance suite (no tests: list)`);
  return {
    file: relative(base, file) || file,
    name: String(doc.name ?? file),
    version: String(doc.spec_version ?? doc.api_version ?? ''),
    level: typeof doc.conformance_level === 'string' ? doc.conformance_level : null,
    tests: (doc.tests as Record<string, unknown>[]).map((t) => ({
      id: String(t.id),
      description: String(t.description ?? ''),
      policy: typeof t.policy === 'string' ? t.policy : null,
      input: (t.input ?? {}) as Record<string, unknown>,
      expected: (t.expected ?? {}) as Record<string, unknown>,
    })),
  };
}
