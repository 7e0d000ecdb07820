import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The process and storage boundaries of docs/architecture.md §3 (eslint.config.js): SQL only in
// src-main/store/, electron only in the shell, src-shared/ and the cockpit apart from src-main/.
// The layer table between src-main/ folders is tested in layers.test.ts. These snippets are
// linted through ESLint's Node API with the repository's config, at paths inside the folder they
// pretend to be in.
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
    expect(await violations('src-main/mcp/testing/layer-probe.ts', snippet)).toEqual([]);
  });

  it('keeps SqliteDatabase opaque: only store/ may unwrap it into a connection', async () => {
    const unwrap = "import { sqliteConnection, type SqliteDatabase } from '../../store/transaction.js';\nexport const n = (db: SqliteDatabase) => sqliteConnection(db);\n";
    const found = await violations('src-main/mcp/servers/layer-probe.ts', unwrap);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: 'sqliteConnection' import .*opaque outside src-main\/store\//);
    expect(await violations('src-main/store/repositories/layer-probe.ts', unwrap.replace('../../store/transaction.js', '../transaction.js'))).toEqual([]);
    expect(await violations('src-main/audit/layer-probe.test.ts', unwrap)).toEqual([]);
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

describe('src-shared imports nothing runtime-specific', () => {
  it('refuses src-main and src-renderer imports', async () => {
    for (const source of ['../src-main/home/paths.js', '../../src-renderer/lib/boot.js', '@main/home/paths.js']) {
      const found = await violations('src-shared/contract/layer-probe.ts', `import * as m from '${source}';\nexport const x = m;\n`);
      expect(found, source).toEqual([expect.stringMatching(/^no-restricted-imports: /)]);
    }
  });
});

describe('the cockpit never imports src-main', () => {
  it('by a relative path or the @main alias; @shared is fine', async () => {
    for (const source of ['../../src-main/home/paths.js', '@main/home/paths.js']) {
      const found = await violations('src-renderer/lib/layer-probe.ts', `import * as m from '${source}';\nexport const x = m;\n`);
      expect(found, source).toEqual([expect.stringMatching(/^no-restricted-imports: .*src-renderer never imports src-main/)]);
    }
    expect(await violations('src-renderer/lib/layer-probe.ts', "import { ErrorCode } from '@shared/errors.js';\nexport const x = ErrorCode;\n")).toEqual([]);
  });
});

describe('electron only in the desktop shell', () => {
  it('lets the shell, its test doubles and the preload import electron, and nothing else', async () => {
    for (const path of ['src-main/electron/layer-probe.ts', 'src-main/electron/testing/layer-probe.ts', 'src-main/preload/layer-probe.ts']) {
      expect(await violations(path, "import type { App } from 'electron';\nexport type A = App;\n"), path).toEqual([]);
    }
    expect(await violations('src-main/control/layer-probe.ts', "import type { App } from 'electron';\nexport type A = App;\n")).toEqual([expect.stringMatching(/^no-restricted-imports: .*electron/)]);
  });
});

