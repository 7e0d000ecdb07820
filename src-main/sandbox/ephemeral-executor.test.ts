import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutionEnvelopeInput } from '../../src-shared/silas/execution.js';
import { useTempDirs } from '../testing/temp.js';
import { SandboxedEphemeralExecutor } from './ephemeral-executor.js';
import { BubblewrapSandboxManager } from './sandbox-manager.js';

const tempDir = useTempDirs('silas-exec-');
const executor = new SandboxedEphemeralExecutor({ manager: new BubblewrapSandboxManager({ baseDir: '/nonexistent-base' }) });

function envelope(action: string, args: Record<string, unknown>, extra: Partial<ExecutionEnvelopeInput> = {}): ExecutionEnvelopeInput {
  return {
    execution_id: 'exec-1',
    step_index: 2,
    task_description: 'test',
    action,
    args: args as ExecutionEnvelopeInput['args'],
    timeout_seconds: 20,
    sandbox_config: { work_dir: tempDir() },
    ...extra,
  };
}

describe('SandboxedEphemeralExecutor', () => {
  it('shell_exec runs an argument list in the work dir and reports an external-taint result', async () => {
    const input = envelope('shell_exec', { command: ['sh', '-c', 'echo hello > greeting.txt && pwd && echo oops >&2'] });
    const result = await executor.execute(input);
    const workDir = (input.sandbox_config as { work_dir: string }).work_dir;
    expect(result).toMatchObject({ execution_id: 'exec-1', step_index: 2, success: true, error: null, taint: 'external', return_value: `${workDir}\n` });
    expect(result.content).toEqual([{ type: 'stderr', text: 'oops\n' }]);
    expect(result.metadata).toMatchObject({ exit_code: 0, timed_out: false, network_isolated: true });
    expect(readFileSync(join(workDir, 'greeting.txt'), 'utf8')).toBe('hello\n');
  });

  it('python_exec feeds the code on stdin to python3 with PATH, HOME and the config env only', async () => {
    const code = 'import os, sys\nprint(sorted(os.environ))\nprint(os.environ["HOME"] == os.getcwd(), sys.version_info[0])';
    const result = await executor.execute(envelope('python_exec', { code }, { sandbox_config: { work_dir: tempDir(), env: { API_BASE: 'x' } } }));
    expect(result.success).toBe(true);
    expect(result.return_value).toBe("['API_BASE', 'HOME', 'LANG', 'PATH', 'PWD']\nTrue 3\n");
  });

  it('refuses a shell string, an unknown action and an invalid envelope without running anything', async () => {
    const shellString = await executor.execute(envelope('shell_exec', { command: 'rm -rf /' }));
    expect(shellString).toMatchObject({ success: false, metadata: { error_code: 'E_SANDBOX_COMMAND_INVALID' } });
    expect(shellString.error).toMatch(/argument list/);
    const unknown = await executor.execute(envelope('web_fetch', {}));
    expect(unknown.error).toMatch(/Unknown action "web_fetch"/);
    const invalid = await executor.execute({ ...envelope('shell_exec', { command: ['true'] }), timeout_seconds: 0 });
    expect(invalid).toMatchObject({ success: false, metadata: { error_code: 'E_SANDBOX_CONFIG_INVALID' } });
    expect(invalid.error).toMatch(/timeout_seconds/);
  });

  it('reports a non-zero exit, a timeout and truncated output', async () => {
    const failed = await executor.execute(envelope('shell_exec', { command: ['sh', '-c', 'exit 3'] }));
    expect(failed).toMatchObject({ success: false, error: 'Exit code 3', metadata: { exit_code: 3 } });
    const slow = await executor.execute(envelope('shell_exec', { command: ['sleep', '30'] }, { timeout_seconds: 1 }));
    expect(slow).toMatchObject({ success: false, error: 'Timeout after 1s', metadata: { timed_out: true, exit_code: null } });
    const loud = await executor.execute(envelope('python_exec', { code: 'print("y" * 10000)' }, { max_output_bytes: 100 }));
    expect(loud.return_value).toBe('y'.repeat(100));
    expect(loud.metadata).toMatchObject({ stdout_truncated: true, stdout_bytes: 10001 });
  });

  it('fails closed with E_SANDBOX_NETWORK_UNAVAILABLE when bubblewrap is missing', async () => {
    const without = new SandboxedEphemeralExecutor({ manager: new BubblewrapSandboxManager({ baseDir: tempDir(), bwrapPath: '/nonexistent/bwrap' }) });
    const result = await without.execute(envelope('shell_exec', { command: ['true'] }));
    expect(result).toMatchObject({ success: false, metadata: { error_code: 'E_SANDBOX_NETWORK_UNAVAILABLE' } });
    expect(result.error).toMatch(/apt-get install bubblewrap/);
  });
});
