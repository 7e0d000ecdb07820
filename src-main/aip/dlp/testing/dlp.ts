import RE2 from 're2';
import type { DlpConfig, DlpPattern, DlpScope } from '../../policy/types.js';

/*
 * Test helpers: DlpConfig objects built by hand (the policy loader is not a dependency of these
 * tests), with the spec's defaults (§3.6).
 */

export type PatternSpec = [name: string, regex: string, scope?: DlpScope];

export function pattern(name: string, regex: string, scope: DlpScope = 'all', flags = 'u'): DlpPattern {
  return { name, pattern: regex, regex: new RE2(regex, flags), scope, verify: null };
}

export function dlpConfig(patterns: (PatternSpec | DlpPattern)[], overrides: Partial<DlpConfig> = {}): DlpConfig {
  return {
    enabled: true,
    scanRequests: false,
    scanResponses: true,
    detectEncoding: false,
    normalize: true,
    filterStderr: false,
    maxScanSize: 1024 * 1024,
    onRequestMatch: 'block',
    onRedactionFailure: 'block',
    logOriginalOnFailure: false,
    patterns: patterns.map((p) => (Array.isArray(p) ? pattern(p[0], p[1], p[2]) : p)),
    ...overrides,
  };
}

const SIZE_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** A DlpConfig from a policy's `dlp:` block as written in YAML (snake_case keys, size strings). */
export function dlpConfigFromBlock(block: Record<string, unknown>): DlpConfig {
  const size = typeof block.max_scan_size === 'string' ? block.max_scan_size : '1MB';
  const sizeMatch = /^(\d+)(B|KB|MB|GB)$/.exec(size);
  if (sizeMatch === null) throw new Error(`bad max_scan_size ${size}`);
  const patterns = (block.patterns as { name: string; regex: string; scope?: DlpScope }[]).map((p) => pattern(p.name, p.regex, p.scope ?? 'all'));
  return {
    enabled: (block.enabled as boolean | undefined) ?? true,
    scanRequests: (block.scan_requests as boolean | undefined) ?? false,
    scanResponses: (block.scan_responses as boolean | undefined) ?? true,
    detectEncoding: (block.detect_encoding as boolean | undefined) ?? false,
    normalize: (block['x-silas-normalize'] as boolean | undefined) ?? true,
    filterStderr: (block.filter_stderr as boolean | undefined) ?? false,
    maxScanSize: Number(sizeMatch[1]) * SIZE_UNITS[sizeMatch[2]!]!,
    onRequestMatch: (block.on_request_match as DlpConfig['onRequestMatch'] | undefined) ?? 'block',
    onRedactionFailure: (block.on_redaction_failure as DlpConfig['onRedactionFailure'] | undefined) ?? 'block',
    logOriginalOnFailure: (block.log_original_on_failure as boolean | undefined) ?? false,
    patterns,
  };
}

/** The 12 patterns of the benchmark and several tests. */
export const COMMON_PATTERNS: PatternSpec[] = [
  ['AWS Key', '(AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}'],
  ['GitHub Token', 'gh[pousr]_[A-Za-z0-9]{36}'],
  ['Email', '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}'],
  ['SSN', '\\b\\d{3}-\\d{2}-\\d{4}\\b'],
  ['Credit Card', '\\b(?:\\d{4}[- ]?){3}\\d{4}\\b'],
  ['JWT', 'eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}'],
  ['Private Key', '-----BEGIN (RSA |EC |DSA |OPENSSH )?PRIVATE KEY-----'],
  ['Slack Token', 'xox[baprs]-[A-Za-z0-9-]{10,48}'],
  ['Stripe Key', '(sk|rk)_live_[0-9a-zA-Z]{24,}'],
  ['Google API Key', 'AIza[0-9A-Za-z_-]{35}'],
  ['IPv4', '\\b(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\b'],
  ['Phone', '\\(?\\b\\d{3}\\)?[-. ]\\d{3}[-. ]\\d{4}\\b'],
];
