import { describe, expect, it } from 'vitest';
import { ExecutionEnvelope, ExecutionResult, SandboxConfig, VerificationReport, VerificationResult } from './execution.js';

describe('SandboxConfig', () => {
  it('fills the spec defaults (§3.7): network denied, 512 MB, 60 s', () => {
    expect(SandboxConfig.parse({})).toEqual({
      backend: null,
      work_dir: './data/sandbox/work',
      network_access: false,
      filesystem_read: [],
      filesystem_write: [],
      max_memory_mb: 512,
      max_cpu_seconds: 60,
      max_processes: 256,
      resource_limits: 'required',
      env: {},
    });
  });

  it('refuses unknown fields, bad env names, NUL in paths and unknown backends, naming the field', () => {
    const unknown = SandboxConfig.safeParse({ network: true });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0]!.message).toMatch(/network/);
    expect(SandboxConfig.safeParse({ env: { 'BAD NAME': 'x' } }).error!.issues[0]!.path).toEqual(['env', 'BAD NAME']);
    expect(SandboxConfig.safeParse({ env: { OK: 'a\0b' } }).success).toBe(false);
    expect(SandboxConfig.safeParse({ filesystem_read: ['/a\0'] }).error!.issues[0]!.path).toEqual(['filesystem_read', 0]);
    expect(SandboxConfig.safeParse({ backend: 'vm' }).success).toBe(false);
    expect(SandboxConfig.safeParse({ max_memory_mb: 0 }).success).toBe(false);
  });
});

describe('ExecutionEnvelope and ExecutionResult', () => {
  it('defaults timeout 300 s and output cap 100,000 bytes; results default to external taint', () => {
    const envelope = ExecutionEnvelope.parse({ execution_id: 'e', step_index: 0, task_description: '', action: 'shell_exec', args: { command: ['true'] }, sandbox_config: {} });
    expect(envelope).toMatchObject({ timeout_seconds: 300, max_output_bytes: 100_000, credential_refs: {}, input_artifacts: {} });
    const result = ExecutionResult.parse({ execution_id: 'e', step_index: 0, success: true, return_value: '', duration_seconds: 0.1 });
    expect(result).toMatchObject({ taint: 'external', error: null, tokens_used: 0, cost_usd: 0, metadata: {}, content: [] });
  });

  it('refuses fields the envelope must not carry (history, approval tokens)', () => {
    const base = { execution_id: 'e', step_index: 0, task_description: '', action: 'x', args: {}, sandbox_config: {} };
    expect(ExecutionEnvelope.safeParse({ ...base, approval_token: 'tok' }).success).toBe(false);
    expect(ExecutionEnvelope.safeParse({ ...base, history: [] }).success).toBe(false);
  });
});

describe('VerificationReport', () => {
  it('keeps output within 1000 characters and requires a timezone-aware timestamp', () => {
    const result = { name: 'n', passed: true, reason: 'ok', output: 'x'.repeat(1000), exit_code: 0 };
    expect(VerificationResult.safeParse(result).success).toBe(true);
    expect(VerificationResult.safeParse({ ...result, output: 'x'.repeat(1001) }).success).toBe(false);
    expect(VerificationReport.safeParse({ all_passed: true, results: [result], failed: [], timestamp: '2026-01-01T00:00:00Z' }).success).toBe(true);
    expect(VerificationReport.safeParse({ all_passed: true, results: [], failed: [], timestamp: '2026-01-01T00:00:00' }).success).toBe(false);
  });
});
