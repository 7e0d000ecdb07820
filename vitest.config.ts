import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['src-main/**/*.test.ts', 'src-shared/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'forks',
        },
      },
      {
        plugins: [react()],
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
