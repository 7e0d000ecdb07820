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

    const tail = await silas.cli('audit', 'tail', '-n', '1', '--json');
    expect(tail.code, tail.stderr).toBe(0);
    const last = JSON.parse(tail.stdout.trim()) as { index: number; event: string; data: Record<string, unknown>; hash: string };
    expect(last.event).toBe('runtime.stopped');
    expect(last.data).toEqual({ reason: 'SIGTERM' });
    expect(last.index).toBe(verdict.entries - 1);

    // The last checkpoint covers that final entry.
    const db = new Database(silas.database, { readonly: true, fileMustExist: true, timeout: 10_000 });
    try {
      const checkpoint = db.prepare('SELECT idx, hash FROM audit_checkpoints ORDER BY idx DESC LIMIT 1').get() as { idx: number; hash: string } | undefined;
      expect(checkpoint).toEqual({ idx: last.index, hash: last.hash });
    } finally {
      db.close();
    }
  });
});
