import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { productionImports } from './import-graph.js';
import { checkImport, EXCEPTIONS, folderOf, LAYERS } from './layers.js';
import { ROOT } from './resolve.js';

// The layer table of docs/architecture.md §3 (scripts/lint/layers.js): first the table itself,
// then snippets linted through ESLint's Node API with eslint.config.js, at paths inside the
// folder they pretend to be in.
let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The messages `import * as m from SOURCE` raises at PATH (`code` replaces the import). */
async function importAt(path: string, source: string, code = `import * as m from '${source}';\nexport const x = m;\n`): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  // Only the layer rule and parse errors: the other import rules (SQL, electron, the opaque
  // SqliteDatabase) are proved in boundaries.test.ts.
  return result!.messages.filter((m) => m.ruleId === null || m.ruleId === 'silas/layers').map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}
const refused = (folder: string) => [expect.stringMatching(new RegExp(`^silas/layers: .* but src-main/${folder}/ may import only .*docs/architecture\\.md §3.*Fix: `))];

const top = (folder: string) => folder.split('/')[0]!;
const PRODUCTS = ['aip', 'aap', 'alignment', 'mcp', 'silas', 'ilp'];

describe('the layer table', () => {
  it('lists only folders that are rows, or subfolders of rows', () => {
    for (const [folder, { may }] of Object.entries(LAYERS)) {
      for (const entry of may) expect(LAYERS[entry] ?? LAYERS[top(entry)], `${folder} -> ${entry}`).toBeDefined();
    }
  });

  it('is a DAG: no folder reaches itself through the folders it may import', () => {
    const edges = new Map<string, Set<string>>();
    for (const [folder, { may }] of Object.entries(LAYERS)) {
      const from = edges.get(top(folder)) ?? new Set<string>();
      for (const entry of may) if (top(entry) !== top(folder)) from.add(top(entry));
      edges.set(top(folder), from);
    }
    const reaches = (from: string, seen = new Set<string>()): Set<string> => {
      for (const next of edges.get(from) ?? []) if (!seen.has(next)) reaches(next, seen.add(next));
      return seen;
    };
    for (const folder of edges.keys()) expect(reaches(folder).has(folder), folder).toBe(false);
  });

  it('keeps products blind to each other except for the edges it names, and aap/ pure', () => {
    const productEdges = Object.entries(LAYERS)
      .filter(([folder]) => PRODUCTS.includes(top(folder)))
      .flatMap(([folder, { may }]) => may.filter((entry) => PRODUCTS.includes(top(entry)) && top(entry) !== top(folder)).map((entry) => `${folder} -> ${entry}`));
    expect(productEdges.sort()).toEqual(['alignment -> aap', 'alignment -> aip', 'ilp -> aip/detect', 'mcp -> aip', 'mcp/silas-tools -> aip', 'mcp/silas-tools -> alignment', 'mcp/silas-tools -> silas', 'silas -> aip/detect', 'silas -> aip/dlp']);
    expect(LAYERS.aap!.may).toEqual([]);
    for (const [folder, { may }] of Object.entries(LAYERS)) {
      if (PRODUCTS.includes(top(folder))) expect(may.filter((entry) => ['review', 'control', 'app', 'cli'].includes(top(entry))), folder).toEqual([]);
    }
  });

  it('has a row for every folder under src-main/ (testing/ is for tests only)', () => {
    const folders = readdirSync(join(ROOT, 'src-main'), { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'testing');
    for (const { name } of folders) expect(folderOf(`src-main/${name}/x.ts`), name).toBe(name);
  });

  it('holds for every import of production code today, and every exception is still needed', () => {
    const imports = productionImports();
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.map(([file, specifier]) => checkImport(file, specifier)).filter((problem) => problem !== null)).toEqual([]);
    for (const { file, target } of EXCEPTIONS) {
      expect(imports.some(([from, , to]) => from === file && to.replace(/\.(js|ts|json)$/, '') === target), `${file} -> ${target}`).toBe(true);
    }
  });
});

describe('lint refuses each kind of forbidden edge', () => {
  it('an upward import', async () => {
    expect(await importAt('src-main/store/layer-probe.ts', '../audit/audit-log.js')).toEqual(refused('store'));
    expect(await importAt('src-main/keys/layer-probe.ts', '../llm/model-client.js')).toEqual(refused('keys'));
    expect(await importAt('src-main/home/layer-probe.ts', '../store/database.js')).toEqual(refused('home'));
    expect(await importAt('src-main/aip/policy/layer-probe.ts', '../../app/home.js')).toEqual(refused('aip'));
    expect(await importAt('src-main/control/layer-probe.ts', '../cli/io.js')).toEqual(refused('control'));
    expect(await importAt('src-main/app/layer-probe.ts', '../cli/io.js')).toEqual(refused('app'));
    expect(await importAt('src-main/electron/layer-probe.ts', '../silas/work/hashes.js')).toEqual(refused('electron'));
  });

  it('a sibling import, in either direction', async () => {
    expect(await importAt('src-main/aip/layer-probe.ts', '../mcp/proxy/proxy.js')).toEqual(refused('aip'));
    expect(await importAt('src-main/aip/layer-probe.ts', '../aap/card.js')).toEqual(refused('aip'));
    expect(await importAt('src-main/silas/stream/layer-probe.ts', '../../mcp/clients/locations.js')).toEqual(refused('silas'));
    expect(await importAt('src-main/silas/layer-probe.ts', '../aip/evaluate/evaluator.js')).toEqual(refused('silas'));
    expect(await importAt('src-main/mcp/proxy/layer-probe.ts', '../../silas/executor/tools.js')).toEqual(refused('mcp'));
    expect(await importAt('src-main/mcp/proxy/layer-probe.ts', '../silas-tools/mcp-toolbox.js')).toEqual(refused('mcp'));
    expect(await importAt('src-main/llm/layer-probe.ts', '../audit/audit-log.js')).toEqual(refused('llm'));
    expect(await importAt('src-main/sandbox/layer-probe.ts', '../approval/engine.js')).toEqual(refused('sandbox'));
  });

  it('an impure aap/ import: nothing of the runtime', async () => {
    for (const source of ['../home/paths.js', '../store/transaction.js', '../audit/audit-log.js', '../aip/policy/types.js', '../alignment/card-keeper.js']) {
      expect(await importAt('src-main/aap/layer-probe.ts', source), source).toEqual(refused('aap'));
    }
    expect(await importAt('src-main/aap/conformance/layer-probe.ts', '../../../src-shared/aap/card.js')).toEqual([]);
  });

  it('a product importing review/', async () => {
    for (const path of ['src-main/aip/layer-probe.ts', 'src-main/mcp/proxy/layer-probe.ts', 'src-main/silas/work/layer-probe.ts', 'src-main/alignment/layer-probe.ts']) {
      const depth = path.split('/').length - 2;
      expect(await importAt(path, `${'../'.repeat(depth)}review/decision-queue.js`), path).toEqual(refused(path.split('/')[1]!));
    }
  });

  it('cli/commands importing store/ or keys/, with the fix pointing to app/', async () => {
    for (const source of ['../../keys/secret-store.js', '../../keys/owner-key.js', '../../store/database.js', '../../store/transaction.js']) {
      expect(await importAt('src-main/cli/commands/layer-probe.ts', source), source).toEqual([expect.stringMatching(/src-main\/cli\/commands\/ may import .*Fix: .*src-main\/app\/.*never from store\/ or keys\//)]);
    }
  });

  it('an alias import crossing a forbidden edge', async () => {
    expect(await importAt('src-main/aip/layer-probe.ts', '@main/mcp/proxy/proxy.js')).toEqual(refused('aip'));
    expect(await importAt('src-main/cli/commands/layer-probe.ts', '@main/store/database.js')).toEqual(refused('cli/commands'));
    expect(await importAt('src-main/preload/layer-probe.ts', '@main/control/router.js')).toEqual(refused('preload'));
    expect(await importAt('src-main/aap/layer-probe.ts', '@main/home/paths.js')).toEqual(refused('aap'));
    expect(await importAt('src-main/aip/layer-probe.ts', '@main/audit/audit-log.js')).toEqual([]);
    expect(await importAt('src-main/preload/layer-probe.ts', '@shared/contract/bridge.js')).toEqual([]);
  });

  it('production code importing a test helper', async () => {
    expect(await importAt('src-main/audit/layer-probe.ts', '../testing/ledger.js')).toEqual([expect.stringMatching(/^silas\/layers: .*a test helper/)]);
    expect(await importAt('src-main/aip/policy/layer-probe.ts', './testing/policy.js')).toEqual([expect.stringMatching(/a test helper/)]);
    expect(await importAt('src-main/aip/layer-probe.ts', './engine.test.js')).toEqual([expect.stringMatching(/a test helper/)]);
  });

  it('a folder with no row', async () => {
    expect(await importAt('src-main/connections/layer-probe.ts', '../home/paths.js')).toEqual([expect.stringMatching(/src-main\/connections\/layer-probe\.ts is in no row of the layer table/)]);
  });

  it('every form of import: export-from, import(), import type and import(…) types', async () => {
    const forms = [
      "export { x } from '../mcp/proxy/proxy.js';\n",
      "export const load = () => import('../mcp/proxy/proxy.js');\n",
      "import type { X } from '../mcp/proxy/proxy.js';\nexport type Y = X;\n",
      "export type Y = import('../mcp/proxy/proxy.js').X;\n",
    ];
    for (const code of forms) expect(await importAt('src-main/aip/layer-probe.ts', '', code), code).toEqual(refused('aip'));
  });
});

describe('lint allows what the table lists', () => {
  it('the platform below, src-shared and a folder\'s own files', async () => {
    for (const source of ['../audit/audit-log.js', '../keys/ed25519.js', '../store/transaction.js', '../home/paths.js', './policy/load.js', '../../src-shared/errors.js']) {
      expect(await importAt('src-main/aip/layer-probe.ts', source), source).toEqual([]);
    }
    expect(await importAt('src-main/llm/layer-probe.ts', '../keys/named-secrets.js')).toEqual([]);
    expect(await importAt('src-main/mcp/sandbox/layer-probe.ts', '../../sandbox/bubblewrap.js')).toEqual([]);
  });

  it('the product edges it names, and only as far as it names them', async () => {
    expect(await importAt('src-main/mcp/proxy/layer-probe.ts', '../../aip/evaluate/evaluator.js')).toEqual([]);
    expect(await importAt('src-main/alignment/layer-probe.ts', '../aap/drift-monitor.js')).toEqual([]);
    expect(await importAt('src-main/silas/gates/content/layer-probe.ts', '../../../aip/dlp/patterns.js')).toEqual([]);
    expect(await importAt('src-main/mcp/silas-tools/layer-probe.ts', '../../silas/executor/tools.js')).toEqual([]);
    expect(await importAt('src-main/mcp/silas-tools/layer-probe.ts', '../clients/locations.js')).toEqual([]);
    expect(await importAt('src-main/ilp/navigator/layer-probe.ts', '../../aip/detect/injection.js')).toEqual([]);
    expect(await importAt('src-main/ilp/navigator/layer-probe.ts', '../../aip/evaluate/evaluator.js')).toEqual(refused('ilp'));
  });

  it('review/ above the products, and the composition, control plane, CLI and shell on top', async () => {
    expect(await importAt('src-main/review/kinds/layer-probe.ts', '../../mcp/servers/tool-change-id.js')).toEqual([]);
    expect(await importAt('src-main/control/layer-probe.ts', '../review/decision-queue.js')).toEqual([]);
    expect(await importAt('src-main/app/layer-probe.ts', '../mcp/silas-tools/mcp-toolbox.js')).toEqual([]);
    expect(await importAt('src-main/cli/layer-probe.ts', '../app/runtime.js')).toEqual([]);
    expect(await importAt('src-main/cli/layer-probe.ts', './commands/registry.js')).toEqual([]);
    expect(await importAt('src-main/electron/layer-probe.ts', '../app/runtime.js')).toEqual([]);
    for (const source of ['../../app/home.js', '../../aip/policy/load.js', '../../home/paths.js', '../args.js', './plan.js', '../../../src-shared/errors.js']) {
      expect(await importAt('src-main/cli/commands/layer-probe.ts', source), source).toEqual([]);
    }
  });

  it('resolves paths, so a nested namesake is not the top-level folder', async () => {
    // silas/store/ is the kernel's own; store/ is the platform's; review/ is above the kernel.
    expect(await importAt('src-main/silas/work/layer-probe.ts', '../store/work-item-store.js')).toEqual([]);
    expect(await importAt('src-main/silas/work/layer-probe.ts', '../../review/decision-queue.js')).toEqual(refused('silas'));
  });

  it('a named exception for its one file and its exact target only', async () => {
    expect(await importAt('src-main/store/repositories/audit-repository.ts', '../../audit/chain.js')).toEqual([]);
    expect(await importAt('src-main/store/repositories/audit-repository.ts', '../../audit/audit-log.js')).toEqual(refused('store'));
    expect(await importAt('src-main/store/repositories/layer-probe.ts', '../../audit/chain.js')).toEqual(refused('store'));
  });

  it('tests, benches and testing/ folders, exempt by those names only', async () => {
    expect(await importAt('src-main/aip/layer-probe.test.ts', '../mcp/proxy/proxy.js')).toEqual([]);
    expect(await importAt('src-main/aip/layer-probe.bench.ts', '../mcp/proxy/proxy.js')).toEqual([]);
    expect(await importAt('src-main/mcp/testing/layer-probe.ts', '../../cli/commands/policy-loading.js')).toEqual([]);
    expect(await importAt('src-main/cli/commands/layer-probe.test.ts', '../../keys/secret-store.js')).toEqual([]);
    expect(await importAt('src-main/silas/executor/layer-test-support.ts', '../../app/home.js')).toEqual(refused('silas'));
  });
});
