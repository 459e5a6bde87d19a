#!/usr/bin/env node
/**
 * `npm run build`: compiles the server, the demo and the agent kit to JavaScript.
 *
 *   node scripts/build.mjs [--out DIR] [--kit-out DIR]
 *
 * - the agent kit (`packages/agent-kit`, its own package) into `packages/agent-kit/dist`
 *   (or `--kit-out`), with its type declarations;
 * - everything the `switchboard` package runs (`src/`, `demo/` and the kit sources it
 *   imports; no test files) into `dist/` (or `--out`) with `tsconfig.build.json`,
 *   keeping the folder layout (`dist/src/cli/main.js`);
 * - the files under `src/` that are not TypeScript (the Postgres migrations) copied
 *   beside the compiled modules that read them;
 * - last, what it was built from (scripts/build-inputs.mjs: a hash of the sources, and the kit's
 *   output folder) in `build-inputs.json` of the server's output folder, so a test can tell a
 *   complete build of the sources it sees.
 *
 * Files at the package root (`schemas/`, `public/`, `package.json`) stay where they are:
 * the code finds them from the package root (src/util/package-files.ts).
 * Each output folder is emptied first, so a deleted source leaves no module behind.
 * Plain JavaScript, so a build needs only `typescript`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUILD_INPUTS_FILE, buildInputsHash } from './build-inputs.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { out: { type: 'string' }, 'kit-out': { type: 'string' } } });
const out = resolve(values.out ?? join(ROOT, 'dist'));
const kitOut = resolve(values['kit-out'] ?? join(ROOT, 'packages/agent-kit/dist'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function compile(project, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  const started = performance.now();
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`build: tsc -p ${project} failed\n`);
    process.exit(result.status ?? 1);
  }
  process.stdout.write(`build: ${project} -> ${relative(ROOT, outDir) || outDir} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** Copies every non-TypeScript file under `from` to the same place under `to`. */
function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (entry.isFile() && !entry.name.endsWith('.ts')) cpSync(source, join(to, entry.name));
  }
}

const inputs = buildInputsHash(ROOT);
compile('packages/agent-kit/tsconfig.json', kitOut);
compile('tsconfig.build.json', out);
copyAssets(join(ROOT, 'src'), join(out, 'src'));
writeFileSync(join(out, BUILD_INPUTS_FILE), `${JSON.stringify({ inputs, kit: kitOut })}\n`);
