import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The cockpit as served by the headless runtime to a browser. The desktop build uses the
 * renderer entry of electron.vite.config.ts; both bundle the same src-renderer.
 */
export default defineConfig({
  root: resolve(import.meta.dirname, 'src-renderer'),
  base: './',
  plugins: [react()],
  // The path alias of tsconfig.base.json the cockpit may use (never @main: docs/architecture.md §3).
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'src-shared') } },
  build: {
    outDir: resolve(import.meta.dirname, 'out/cockpit'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
  },
  logLevel: 'warn',
});
