import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globals: true,
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: 'forks',
  },
});
