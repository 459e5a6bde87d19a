import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The package's own `switchboard/agent-kit` export names the build (dist/); tests read the sources
  // (as tsconfig.json's `paths` does for the typecheck and tsx).
  resolve: { alias: { 'switchboard/agent-kit': fileURLToPath(new URL('./src/agent-kit/index.ts', import.meta.url)) } },
  test: {
    globals: true,
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: 'forks',
    projects: [
      // The unit tests beside the sources share one process and its loaded modules: a fresh process
      // per file costs about half a second of CPU each (docs/decisions/0052-ci-time.md). They keep
      // no state between files (no module mocks, no global registrations, fake timers put back).
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      // Contract, scenario, store and browser tests start servers, change the registry on disk and
      // read process-wide settings: each file in its own process.
      { extends: true, test: { name: 'system', include: ['test/**/*.test.ts'] } },
    ],
  },
});
