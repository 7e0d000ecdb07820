import { describe, expect, it, vi } from 'vitest';
import type { DlpConfig } from '../policy/types.js';
import { DlpEngine } from './engine.js';
import { dlpConfig, type PatternSpec } from './testing/dlp.js';

const API_KEY: PatternSpec = ['API Key', 'sk-[a-zA-Z0-9]{32}', 'request'];
const SQL: PatternSpec = ['SQL Injection', '(?i)(DROP|DELETE|TRUNCATE)\\s+TABLE', 'request'];
const SECRET = `sk-${'a1B2'.repeat(8)}`;

function engineWith(overrides: Partial<DlpConfig>, onWarning?: (m: string) => void): DlpEngine {
  return new DlpEngine(dlpConfig([API_KEY, SQL], { scanRequests: true, ...overrides }), { onWarning });
}

const args = () => ({ url: `https://api.example.com/?key=${SECRET}`, method: 'GET', headers: { 'x-note': 'fine' }, retries: 3 });

/** A validator like a tool's argument schema: url must be an https URL without brackets. */
const urlValidator = (value: unknown): string | null => {
  const url = (value as { url: unknown }).url;
  if (typeof url !== 'string') return 'url: expected string';
  return /^https:\/\/[^\s[\]]+$/.test(url) ? null : `url: expected URL, got ${url}`;
};

describe('scanRequest: on_request_match', () => {
  it('forwards unchanged when nothing matches (same object)', () => {
    const value = { q: 'weather in Paris' };
    const result = engineWith({}).scanRequest(value);
    expect(result).toEqual({ action: 'forward', value, events: [], errorCode: null, error: null, redactionFailure: null, warnings: [] });
    expect(result.value).toBe(value);
  });

  it('block (the default): -32001 with the rule, nothing forwarded', () => {
    const input = args();
    const result = engineWith({}).scanRequest(input);
    expect(result.action).toBe('block');
    expect(result.errorCode).toBe(-32001);
    expect(result.error).toEqual({ code: -32001, message: 'Forbidden', data: { reason: 'DLP pattern matched in request arguments', dlp_rule: 'API Key' } });
    expect(result.events).toEqual([{ rule: 'API Key', count: 1 }]);
    expect(result.value).toBe(input);
  });

  it('warn: forwards the original and reports a warning', () => {
    const onWarning = vi.fn();
    const input = args();
    const result = engineWith({ onRequestMatch: 'warn' }, onWarning).scanRequest(input);
    expect(result.action).toBe('warn');
    expect(result.value).toBe(input);
    expect(result.errorCode).toBeNull();
    expect(result.events).toEqual([{ rule: 'API Key', count: 1 }]);
    expect(result.warnings).toEqual(['DLP: request arguments matched API Key; forwarded unchanged (on_request_match: warn)']);
    expect(onWarning).toHaveBeenCalledWith(result.warnings[0]);
  });

  it('redact: forwards redacted arguments, leaving the input untouched', () => {
    const input = args();
    const result = engineWith({ onRequestMatch: 'redact' }).scanRequest(input);
    expect(result.action).toBe('redact');
    expect(result.value).toEqual({ ...input, url: 'https://api.example.com/?key=[REDACTED:API Key]' });
    expect((result.value as typeof input).headers).toBe(input.headers);
    expect(input.url).toContain(SECRET);
    expect(result.errorCode).toBeNull();
  });

  it('redact with a validator that accepts the redacted arguments', () => {
    const seen: unknown[] = [];
    const result = engineWith({ onRequestMatch: 'redact' }).scanRequest({ sql: 'drop table users', note: 'n' }, (v) => {
      seen.push(v);
      return null;
    });
    expect(result.action).toBe('redact');
    expect(seen).toEqual([{ sql: '[REDACTED:SQL Injection] users', note: 'n' }]);
  });
});

describe('scanRequest: on_redaction_failure', () => {
  const expectedData = {
    reason: 'Redacted request failed argument validation',
    dlp_rule: 'API Key',
    validation_error: 'url: expected URL, got https://api.example.com/?key=[REDACTED:API Key]',
  };

  it('block (the default): -32001 with the validation error', () => {
    const input = args();
    const result = engineWith({ onRequestMatch: 'redact' }).scanRequest(input, urlValidator);
    expect(result.action).toBe('block');
    expect(result.errorCode).toBe(-32001);
    expect(result.error).toEqual({ code: -32001, message: 'Forbidden', data: expectedData });
    expect(result.redactionFailure).toEqual({ reason: 'argument_validation_failed', validationError: expectedData.validation_error });
    expect(result.value).toBe(input);
  });

  it('reject: -32014 "DLP redaction failed" in the §3.6.4 shape (the caller adds tool)', () => {
    const result = engineWith({ onRequestMatch: 'redact', onRedactionFailure: 'reject' }).scanRequest(args(), urlValidator);
    expect(result.action).toBe('block');
    expect(result.errorCode).toBe(-32014);
    expect(result.error).toEqual({ code: -32014, message: 'DLP redaction failed', data: expectedData });
  });

  it('allow_original: forwards the original unredacted arguments', () => {
    const input = args();
    const result = engineWith({ onRequestMatch: 'redact', onRedactionFailure: 'allow_original' }).scanRequest(input, urlValidator);
    expect(result.action).toBe('forward');
    expect(result.value).toBe(input);
    expect(result.errorCode).toBeNull();
    expect(result.error).toBeNull();
    expect(result.events).toEqual([{ rule: 'API Key', count: 1 }]);
    expect(result.redactionFailure).toEqual({ reason: 'argument_validation_failed', validationError: expectedData.validation_error });
  });

  it('a throwing validator is a failure with its message', () => {
    const result = engineWith({ onRequestMatch: 'redact', onRedactionFailure: 'reject' }).scanRequest(args(), () => {
      throw new Error('schema exploded');
    });
    expect(result.errorCode).toBe(-32014);
    expect(result.error?.data.validation_error).toBe('schema exploded');
  });

  it('the validator is not consulted when on_request_match is block or warn', () => {
    const validate = vi.fn(() => 'bad');
    expect(engineWith({}).scanRequest(args(), validate).errorCode).toBe(-32001);
    expect(engineWith({ onRequestMatch: 'warn' }).scanRequest(args(), validate).action).toBe('warn');
    expect(validate).not.toHaveBeenCalled();
  });

  it('dlp_rule is the first rule in policy order that matched', () => {
    const result = engineWith({}).scanRequest({ a: 'DROP TABLE x', b: SECRET });
    expect(result.error?.data.dlp_rule).toBe('API Key');
    expect(result.events).toEqual([
      { rule: 'API Key', count: 1 },
      { rule: 'SQL Injection', count: 1 },
    ]);
  });

  it('scans every string and key of nested arguments', () => {
    const result = engineWith({ onRequestMatch: 'redact' }).scanRequest({ [SECRET]: { list: [1, { deep: `x ${SECRET}` }] } });
    expect(result.value).toEqual({ '[REDACTED:API Key]': { list: [1, { deep: 'x [REDACTED:API Key]' }] } });
  });
});
