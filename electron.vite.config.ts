import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

/**
 * Desktop build: three explicit entries. The main process bundles the whole Node runtime
 * (src-main) behind the thin Electron shell; native modules stay external.
 */
export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      rollupOptions: {
        // The chain verifier's worker (src-main/audit/verify-worker.ts) is its own entry: a worker thread loads it by file.
        input: { index: resolve(root, 'src-main/electron/main.ts'), 'verify-worker': resolve(root, 'src-main/audit/verify-worker.ts') },
        external: ['better-sqlite3', '@napi-rs/keyring', 'ws', 'electron'],
      },
    },
  },
  preload: {
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
    build: {
      outDir: resolve(root, 'out/renderer'),
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
