import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connectionStatus, expect, openCockpit, test } from './fixtures/test.js';

test.describe('graceful shutdown', () => {
  test('SIGTERM: exit 0, control.json removed, the chain ends with runtime.stopped under a signed checkpoint', async ({ page, silas }) => {
    await openCockpit(page, silas);
    expect(existsSync(silas.controlFile)).toBe(true);

    const status = await silas.stop();
    expect(status, silas.output()).toEqual({ code: 0, signal: null });
    expect(silas.stdout).toContain('Stopping (SIGTERM)…');
    expect(silas.stdout).toContain('Stopped; audit checkpoint written.');
    expect(existsSync(silas.controlFile)).toBe(false);
    expect(existsSync(join(silas.home, 'runtime.lock'))).toBe(false);

    // The open cockpit notices at once instead of looking live.
    await expect(connectionStatus(page)).toHaveText('Reconnecting…');

    const verify = await silas.cli('audit', 'verify', '--json');
    expect(verify.code, verify.stderr).toBe(0);
    const verdict = JSON.parse(verify.stdout) as { valid: boolean; entries: number; checkpoints: number; firstInvalid: unknown };
    expect(verdict).toMatchObject({ valid: true, firstInvalid: null });
    expect(verdict.entries).toBeGreaterThanOrEqual(3);
    expect(verdict.checkpoints).toBeGreaterThanOrEqual(1);

    // runtime.stopped is the last decision; the shutdown checkpoint entry that covers it follows.
    const tail = await silas.cli('audit', 'tail', '-n', '2', '--json');
    expect(tail.code, tail.stderr).toBe(0);
    const [stopped, checkpointEntry] = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { index: number; event: string; data: Record<string, unknown>; hash: string });
    expect(stopped!.event).toBe('runtime.stopped');
    expect(stopped!.data).toEqual({ reason: 'SIGTERM' });
    expect(checkpointEntry!.event).toBe('audit.checkpoint');
    expect(checkpointEntry!.index).toBe(verdict.entries - 1);

    // The last signed checkpoint is that final entry.
    const db = new Database(silas.database, { readonly: true, fileMustExist: true, timeout: 10_000 });
    try {
      const checkpoint = db.prepare('SELECT idx, hash FROM audit_checkpoints ORDER BY idx DESC LIMIT 1').get() as { idx: number; hash: string } | undefined;
      expect(checkpoint).toEqual({ idx: checkpointEntry!.index, hash: checkpointEntry!.hash });
    } finally {
      db.close();
    }
  });
});
