/**
 * What a build of `scripts/build.mjs` is made from, as one SHA-256: the path and bytes of every
 * file under the compiled folders (`src/`, `demo/`, `packages/agent-kit/src/`, including the
 * non-TypeScript files the build copies), the TypeScript settings, the build script itself and
 * the lockfile (which pins the compiler). `npm run build` records it in `dist/build-inputs.json`;
 * the tests that need a built package (test/support/built-package.ts) reuse `dist/` when the
 * recorded value is the current one, and build their own otherwise.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const FOLDERS = ['src', 'demo', 'packages/agent-kit/src'];
const FILES = ['tsconfig.json', 'tsconfig.build.json', 'packages/agent-kit/tsconfig.json', 'scripts/build.mjs', 'scripts/build-inputs.mjs', 'package.json', 'package-lock.json'];

/** The name of the file, in the build's output folder, that holds the inputs' hash. */
export const BUILD_INPUTS_FILE = 'build-inputs.json';

function filesUnder(root, folder, into) {
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) filesUnder(root, path, into);
    else if (entry.isFile()) into.push(path);
  }
  return into;
}

/** The hex SHA-256 of the build's inputs in the checkout at `root`. */
export function buildInputsHash(root) {
  const hash = createHash('sha256');
  const paths = FOLDERS.flatMap((folder) => (existsSync(join(root, folder)) ? filesUnder(root, folder, []) : []));
  for (const path of [...paths, ...FILES.filter((file) => existsSync(join(root, file)) && statSync(join(root, file)).isFile())]) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}
