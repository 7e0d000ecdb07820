import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The path aliases of tsconfig.base.json (docs/architecture.md §4); projects do not inherit the
// root config, so each names them.
const alias = { '@main': resolve(import.meta.dirname, 'src-main'), '@shared': resolve(import.meta.dirname, 'src-shared') };

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'node',
          environment: 'node',
          include: ['src-main/**/*.test.ts', 'src-shared/**/*.test.ts', 'scripts/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'forks',
        },
      },
      {
        plugins: [react()],
        resolve: { alias: { '@shared': alias['@shared'] } },
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['src-renderer/**/*.test.ts', 'src-renderer/**/*.test.tsx'],
          testTimeout: 15_000,
        },
      },
    ],
  },
});
