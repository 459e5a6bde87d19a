#!/usr/bin/env node
// Runs the built CLI (`dist/`, written by `npm run build`; the published package ships it).
// A development checkout without a build runs the TypeScript sources through tsx instead;
// `serve` says so on stderr, since that is the command that should not run this way in production.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const source = new URL('../src/cli/main.ts', import.meta.url);
  if (!existsSync(source)) {
    process.stderr.write('switchboard: dist/src/cli/main.js is missing; run `npm run build`\n');
    process.exit(1);
  }
  if (process.argv[2] === 'serve' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
    process.stderr.write('switchboard: no build in dist/, running the TypeScript sources through tsx (`npm run build` for production)\n');
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
}
