import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = import.meta.dirname;
// The path aliases of tsconfig.base.json, for every bundle (the renderer has only @shared).
const alias = { '@main': resolve(root, 'src-main'), '@shared': resolve(root, 'src-shared') };

/**
 * The policy templates are read from beside the module that lists them (src-main/aip/templates/
 * catalog.ts, by `import.meta.url`); in the bundle that module is out/main/index.js, so the
 * YAML and suites are emitted there unchanged.
 */
function policyTemplates(): Plugin {
  const dir = resolve(import.meta.dirname, 'src-main/aip/templates');
  return {
    name: 'silas-policy-templates',
    generateBundle() {
      for (const file of readdirSync(dir).filter((name) => /\.(ya?ml|suite\.json)$/.test(name))) {
        this.emitFile({ type: 'asset', fileName: file, source: readFileSync(join(dir, file), 'utf8') });
      }
    },
  };
}

/**
 * Desktop build: three explicit entries. The main process bundles the whole Node runtime
 * (src-main) behind the thin Electron shell; native modules stay external.
 */
export default defineConfig({
  main: {
    plugins: [policyTemplates()],
    resolve: { alias },
    build: {
      outDir: resolve(root, 'out/main'),
      rollupOptions: {
        // The chain verifier's, the policy checker's and the WAL checkpointer's workers are their own entries: a worker thread loads its file.
        input: {
          index: resolve(root, 'src-main/electron/main.ts'),
          'verify-worker': resolve(root, 'src-main/audit/verify-worker.ts'),
          'policy-check-worker': resolve(root, 'src-main/aip/trial/policy-check-worker.ts'),
          'wal-checkpoint-worker': resolve(root, 'src-main/store/wal-checkpoint-worker.ts'),
        },
        external: ['better-sqlite3', '@napi-rs/keyring', 'ws', 'electron'],
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      // A sandboxed preload cannot require() packages: bundle zod and the contract into it.
      externalizeDeps: false,
      outDir: resolve(root, 'out/preload'),
      rollupOptions: {
        input: { index: resolve(root, 'src-main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react()],
    resolve: { alias: { '@shared': alias['@shared'] } },
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
