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
