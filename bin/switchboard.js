#!/usr/bin/env node
// Runs the built CLI (`dist/`, written by `npm run build`; the published package ships it).
// In a development checkout (sources beside it) without a build, or with a build older than
// the sources, it runs the TypeScript sources through tsx instead; `serve` says so on stderr,
// since that is the command that should not run this way in production.
import { existsSync, readdirSync, statSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
const source = new URL('../src/cli/main.ts', import.meta.url);

/** The newest modification time of the TypeScript files the build compiles under `folder` (0 when there are none). */
function newestSource(folder) {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return newest;
}

/** Why the sources run instead of the build, or undefined to run the build. */
function reasonForSources() {
  if (!existsSync(source)) return undefined;
  if (!existsSync(built)) return 'no build in dist/';
  const buildTime = statSync(built).mtimeMs;
  for (const folder of ['../src/', '../demo/', '../packages/agent-kit/src/']) {
    const url = new URL(folder, import.meta.url);
    if (existsSync(url) && newestSource(url) > buildTime) return 'the build in dist/ is older than the sources';
  }
  return undefined;
}

const reason = reasonForSources();
if (reason === undefined) {
  if (!existsSync(built)) {
    process.stderr.write('switchboard: dist/src/cli/main.js is missing; run `npm run build`\n');
    process.exit(1);
  }
  await import(built.href);
} else {
  if (process.argv[2] === 'serve' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
    process.stderr.write(`switchboard: ${reason}, running the TypeScript sources through tsx (\`npm run build\` for production)\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
}
