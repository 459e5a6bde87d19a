import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The package's own `switchboard/agent-kit` export names the build (dist/); tests read the sources
  // (as tsconfig.json's `paths` does for the typecheck and tsx).
  resolve: { alias: { 'switchboard/agent-kit': fileURLToPath(new URL('./src/agent-kit/index.ts', import.meta.url)) } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globals: true,
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: 'forks',
  },
});
