import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../keys/secret-store.js';
import { ScriptedExecutorAgent } from '../silas/executor/scripted-agent.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import { openRunSession } from './compose-run.js';
import { openHome } from './home.js';

const tempDir = useTempDirs('silas-compose-run-');

async function initialised(): Promise<{ home: string; keyring: MemorySecretStore }> {
  const home = join(tempDir(), 'home');
  const keyring = new MemorySecretStore();
  expect((await runSilas(['init', '--home', home], { secretStore: keyring })).code).toBe(0);
  return { home, keyring };
}

describe('silas run composition', () => {
  it('records the run in the home’s ledger and names the entries it wrote', async () => {
    const { home, keyring } = await initialised();
    const session = openRunSession(home, { secretStore: keyring, workDir: tempDir(), agent: () => new ScriptedExecutorAgent([]) });
    let kept: string;
    try {
      kept = session.audit.append('silas.run.approval_confirmed', { work_item_id: 'w-1', plan_hash: 'a'.repeat(64), source: 'terminal' }).id;
      expect(session.committedIds()).toEqual([kept]);
      expect(session.store.get('w-1')).toBeNull();
    } finally {
      session.close();
    }
    const ledger = openHome(home, { create: false, keys: 'signer', secretStore: keyring });
    try {
      expect(ledger.committed([kept, 'never-written'])).toEqual([kept]);
    } finally {
      ledger.close();
    }
  });

  it('refuses a home whose owner key is not in the keyring, before anything runs', async () => {
    const { home } = await initialised();
    expect(() => openRunSession(home, { secretStore: new MemorySecretStore(), workDir: tempDir(), agent: () => new ScriptedExecutorAgent([]) })).toThrow(/owner key.*not in the OS keyring/);
  });
});
