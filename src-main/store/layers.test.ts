import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The layer rules of docs/architecture.md §3 live in eslint.config.js; these snippets are linted
// through ESLint's Node API with that config, at paths inside the layer they pretend to be in.
const repo = fileURLToPath(new URL('../../', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repo });
});

/** The ids of the rules that fire on `code` as if it were the file at `path`. */
async function violations(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repo}${path}` });
  return result!.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

const useDb = "import type { SqliteDatabase } from '../../store/transaction.js';\nexport const n = (db: SqliteDatabase): number => ";

describe('SQL only in src-main/store', () => {
  it('refuses better-sqlite3 in a service and names the fix', async () => {
    const found = await violations('src-main/mcp/servers/layer-probe.ts', "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n");
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: .*better-sqlite3.*src-main\/store\//);
  });

  it('allows it in a store repository, a test and the test helpers', async () => {
    const snippet = "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n";
    expect(await violations('src-main/store/repositories/layer-probe.ts', snippet)).toEqual([]);
    expect(await violations('src-main/audit/layer-probe.test.ts', snippet)).toEqual([]);
    expect(await violations('src-main/testing/layer-probe.ts', snippet)).toEqual([]);
  });

  it('refuses SQL run on a connection outside store, however the connection is reached', async () => {
    for (const call of ["db.prepare('SELECT 1').pluck().get() as number", "(db.exec('DELETE FROM t'), 0)", "db.pragma('quick_check', { simple: true }) as number"]) {
      const found = await violations('src-main/mcp/servers/layer-probe.ts', `${useDb}${call};\n`);
      expect(found, call).toHaveLength(1);
      expect(found[0]).toMatch(/^no-restricted-syntax: SQL runs only in src-main\/store\//);
    }
    const member = "import type { SqliteDatabase } from '../store/transaction.js';\nexport class P { constructor(private readonly db: SqliteDatabase) {}\n  n(): unknown { return this.db.transaction(() => 1)(); } }\n";
    expect(await violations('src-main/app/layer-probe.ts', member)).toEqual([expect.stringMatching(/^no-restricted-syntax: /)]);
  });

  it('leaves RegExp#exec and other prepare methods alone', async () => {
    const code = "export const m = (s: string, r: { prepare(x: string): number }) => [/a(b)/.exec(s)?.[1], r.prepare(s)];\n";
    expect(await violations('src-main/silas/gates/layer-probe.ts', code)).toEqual([]);
  });

  it('lets a store repository run SQL', async () => {
    expect(await violations('src-main/store/repositories/layer-probe.ts', `${useDb.replace('../../store/', '../')}db.prepare('SELECT 1').pluck().get() as number;\n`)).toEqual([]);
  });
});

describe('src-main/home is a leaf', () => {
  it('imports node and src-shared, nothing else of src-main', async () => {
    const ok = "import { join } from 'node:path';\nimport { ErrorCode } from '../../src-shared/errors.js';\nimport { homePaths } from './paths.js';\nexport const x = [join, ErrorCode, homePaths];\n";
    expect(await violations('src-main/home/layer-probe.ts', ok)).toEqual([]);
    for (const source of ['../app/ledger.js', '../store/database.js', '../../src-renderer/lib/boot.js']) {
      const found = await violations('src-main/home/layer-probe.ts', `import * as m from '${source}';\nexport const x = m;\n`);
      expect(found, source).toEqual([expect.stringMatching(/^no-restricted-imports: .*src-main\/home\/ is a leaf/)]);
    }
  });
});

describe('src-shared imports nothing runtime-specific', () => {
  it('refuses src-main and src-renderer imports', async () => {
    for (const source of ['../src-main/home/paths.js', '../../src-renderer/lib/boot.js']) {
      const found = await violations('src-shared/contract/layer-probe.ts', `import * as m from '${source}';\nexport const x = m;\n`);
      expect(found, source).toEqual([expect.stringMatching(/^no-restricted-imports: /)]);
    }
  });
});

/** `import * as m from SOURCE` at PATH: the rule messages it raises. */
const importAt = (path: string, source: string): Promise<string[]> => violations(path, `import * as m from '${source}';\nexport const x = m;\n`);
const layerMessage = (folder: string) => expect.stringMatching(new RegExp(`^no-restricted-imports: .*src-main/${folder}/ may import .*docs/architecture\\.md §3`));

describe('domains import only the layers below them', () => {
  it('keeps the policy engine below the proxy, the kernel, the control plane and the composition', async () => {
    for (const source of ['../mcp/proxy/proxy.js', '../silas/work/hashes.js', '../control/router.js', '../app/ledger.js', '../cli/io.js', '../review/decision-queue.js', '../approvals/tool-call-approval.js']) {
      expect(await importAt('src-main/aip/layer-probe.ts', source), source).toEqual([layerMessage('aip')]);
    }
    for (const source of ['../audit/audit-log.js', '../keys/ed25519.js', '../store/transaction.js', '../home/paths.js', './policy/load.js', '../../src-shared/errors.js']) {
      expect(await importAt('src-main/aip/layer-probe.ts', source), source).toEqual([]);
    }
  });

  it('counts the folders a file sits below, so nested files are held to the same rule', async () => {
    expect(await importAt('src-main/aip/policy/layer-probe.ts', '../../mcp/proxy/proxy.js')).toEqual([layerMessage('aip')]);
    expect(await importAt('src-main/silas/gates/content/layer-probe.ts', '../../../control/router.js')).toEqual([layerMessage('silas')]);
    expect(await importAt('src-main/silas/gates/content/layer-probe.ts', '../../../aip/dlp/patterns.js')).toEqual([]);
  });

  it('tells a nested namesake from the top-level folder', async () => {
    // silas/review/ and silas/store/ are the kernel's own; review/ and control/ are above it.
    expect(await importAt('src-main/silas/work/layer-probe.ts', '../review/plan-card.js')).toEqual([]);
    expect(await importAt('src-main/silas/work/layer-probe.ts', '../store/work-item-store.js')).toEqual([]);
    expect(await importAt('src-main/silas/work/layer-probe.ts', '../../review/decision-queue.js')).toEqual([layerMessage('silas')]);
  });

  it('keeps store/ and keys/ at the bottom', async () => {
    for (const source of ['../audit/audit-log.js', '../keys/owner-key.js', '../aip/engine.js']) {
      expect(await importAt('src-main/store/layer-probe.ts', source), source).toEqual([layerMessage('store')]);
    }
    expect(await importAt('src-main/store/layer-probe.ts', '../home/paths.js')).toEqual([]);
    for (const source of ['../audit/audit-log.js', '../approvals/standing-grants.js']) {
      expect(await importAt('src-main/keys/layer-probe.ts', source), source).toEqual([layerMessage('keys')]);
    }
    for (const source of ['../store/transaction.js', '../home/paths.js']) expect(await importAt('src-main/keys/layer-probe.ts', source), source).toEqual([]);
  });

  it('keeps model access above the keyring and below the kernel', async () => {
    expect(await importAt('src-main/llm/layer-probe.ts', '../keys/named-secrets.js')).toEqual([]);
    for (const source of ['../silas/work/hashes.js', '../audit/audit-log.js']) expect(await importAt('src-main/llm/layer-probe.ts', source), source).toEqual([layerMessage('llm')]);
    expect(await importAt('src-main/silas/agents/layer-probe.ts', '../../llm/model-client.js')).toEqual([]);
    expect(await importAt('src-main/keys/layer-probe.ts', '../llm/model-client.js')).toEqual([layerMessage('keys')]);
  });

  it('lets only cli/ and the desktop shell import app/, and keeps the control plane below the CLI', async () => {
    for (const path of ['src-main/approvals/layer-probe.ts', 'src-main/mcp/proxy/layer-probe.ts', 'src-main/control/layer-probe.ts', 'src-main/review/layer-probe.ts']) {
      const depth = path.split('/').length - 2;
      expect(await importAt(path, `${'../'.repeat(depth)}app/runtime.js`), path).toEqual([layerMessage(path.split('/')[1]!)]);
    }
    expect(await importAt('src-main/cli/layer-probe.ts', '../app/runtime.js')).toEqual([]);
    expect(await importAt('src-main/electron/layer-probe.ts', '../app/runtime.js')).toEqual([]);
    expect(await importAt('src-main/control/layer-probe.ts', '../cli/io.js')).toEqual([layerMessage('control')]);
    expect(await importAt('src-main/app/layer-probe.ts', '../cli/io.js')).toEqual([layerMessage('app')]);
    expect(await importAt('src-main/electron/layer-probe.ts', '../silas/work/hashes.js')).toEqual([layerMessage('electron')]);
    expect(await importAt('src-main/preload/layer-probe.ts', '../control/router.js')).toEqual([layerMessage('preload')]);
  });

  it('keeps src-main/testing/ out of production code', async () => {
    expect(await importAt('src-main/audit/layer-probe.ts', '../testing/ledger.js')).toEqual([layerMessage('audit')]);
    expect(await importAt('src-main/cli/layer-probe.ts', '../testing/cli.js')).toEqual([layerMessage('cli')]);
  });

  it('allows a named exception for its one file and its exact target only', async () => {
    expect(await importAt('src-main/store/repositories/audit-repository.ts', '../../audit/chain.js')).toEqual([]);
    expect(await importAt('src-main/store/repositories/audit-repository.ts', '../../audit/audit-log.js')).toEqual([layerMessage('store')]);
    expect(await importAt('src-main/store/repositories/layer-probe.ts', '../../audit/chain.js')).toEqual([layerMessage('store')]);
  });

  it('exempts tests and test doubles, which assemble what they attack', async () => {
    expect(await importAt('src-main/aip/layer-probe.test.ts', '../mcp/proxy/proxy.js')).toEqual([]);
    expect(await importAt('src-main/mcp/testing/layer-probe.ts', '../../cli/commands/policy-loading.js')).toEqual([]);
    expect(await importAt('src-main/silas/executor/test-support.ts', '../../app/ledger.js')).toEqual([]);
  });

  it('still lets the shell and its test doubles import electron', async () => {
    for (const path of ['src-main/electron/layer-probe.ts', 'src-main/electron/testing/layer-probe.ts', 'src-main/preload/layer-probe.ts']) {
      expect(await violations(path, "import type { App } from 'electron';\nexport type A = App;\n"), path).toEqual([]);
    }
    expect(await violations('src-main/control/layer-probe.ts', "import type { App } from 'electron';\nexport type A = App;\n")).toEqual([expect.stringMatching(/^no-restricted-imports: .*electron/)]);
  });
});

describe('CLI commands stay thin', () => {
  it('refuses store/ and keys/ in a command and points to app/', async () => {
    for (const source of ['../../keys/secret-store.js', '../../keys/owner-key.js', '../../store/database.js', '../../store/transaction.js']) {
      expect(await importAt('src-main/cli/commands/layer-probe.ts', source), source).toEqual([expect.stringMatching(/^no-restricted-imports: .*src-main\/cli\/commands\/ may import .*from src-main\/app\/.*never from store\/ or keys\//)]);
    }
  });

  it('lets a command use app/, the domains and the rest of cli/', async () => {
    for (const source of ['../../app/ledger.js', '../../app/cli-keyring.js', '../../aip/policy/load.js', '../../home/paths.js', '../args.js', './plan.js', '../../../src-shared/errors.js']) {
      expect(await importAt('src-main/cli/commands/layer-probe.ts', source), source).toEqual([]);
    }
  });

  it('leaves cli/ outside commands and the commands\' tests free to reach the keyring', async () => {
    expect(await importAt('src-main/cli/layer-probe.ts', '../keys/secret-store.js')).toEqual([]);
    expect(await importAt('src-main/cli/commands/layer-probe.test.ts', '../../keys/secret-store.js')).toEqual([]);
  });
});
