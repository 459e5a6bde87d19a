/**
 * The `switchboard` package as it would be installed from its tarball: `npm run build`'s
 * script compiles into a temporary folder, then the entries of package.json `files` are
 * copied beside it, as `npm pack` would take them. Its `node_modules` links every
 * dependency of this checkout except the development-only TypeScript runner (tsx),
 * so nothing in it can run TypeScript. The agent kit's own build goes next to it.
 *
 * The build is done once per test run, whichever test file asks first: the others wait
 * for it (a folder named after the test runner's process, created atomically, is the lock).
 * When the checkout's own `dist/` holds a complete `npm run build` of the sources as they are
 * now (its `build-inputs.json`, scripts/build-inputs.mjs), that build is copied instead of
 * compiled again (.ci/run builds before the tests); otherwise the test run builds its own.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUILD_INPUTS_FILE, buildInputsHash } from '../../scripts/build-inputs.mjs';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const PREFIX = 'sb-built-';
const WAIT_MS = 600_000;

export interface BuiltPackage {
  /** The installed package's folder (package.json, bin/, dist/, public/, schemas/...). */
  root: string;
  /** Its `bin/switchboard.js`. */
  bin: string;
  /** The agent kit's package folder (its package.json and dist/). */
  kit: string;
  /** Seconds the build (or the copy of a fresh `npm run build`) took (0 when another test file made it). */
  buildSeconds: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes builds left by test runs that have ended. */
function sweep(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length).split('-')[0] : NaN);
    if (Number.isInteger(pid) && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('close', (code) => done({ code, output }));
  });
}

/** The checkout's `dist/` and the kit's output folder, when they are a complete build of the current sources. */
function freshCheckoutBuild(): { dist: string; kitDist: string } | undefined {
  const dist = join(REPO_ROOT, 'dist');
  let recorded: { inputs?: unknown; kit?: unknown };
  try {
    recorded = JSON.parse(readFileSync(join(dist, BUILD_INPUTS_FILE), 'utf8')) as typeof recorded;
  } catch {
    return undefined;
  }
  if (typeof recorded.kit !== 'string' || !existsSync(join(recorded.kit, 'index.js'))) return undefined;
  return recorded.inputs === buildInputsHash(REPO_ROOT) ? { dist, kitDist: recorded.kit } : undefined;
}

async function build(folder: string): Promise<BuiltPackage> {
  const root = join(folder, 'switchboard');
  const kit = join(folder, 'agent-kit');
  const started = performance.now();
  const fresh = freshCheckoutBuild();
  if (fresh) {
    cpSync(fresh.dist, join(root, 'dist'), { recursive: true });
    cpSync(fresh.kitDist, join(kit, 'dist'), { recursive: true });
  } else {
    const result = await run([join(REPO_ROOT, 'scripts/build.mjs'), '--out', join(root, 'dist'), '--kit-out', join(kit, 'dist')], REPO_ROOT);
    if (result.code !== 0) throw new Error(`the build failed:\n${result.output}`);
  }
  const buildSeconds = (performance.now() - started) / 1000;

  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
  cpSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  for (const entry of manifest.files) {
    if (entry !== 'dist') cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
  }
  mkdirSync(join(root, 'node_modules'));
  for (const name of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (name !== 'tsx' && name !== '.bin') symlinkSync(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
  cpSync(join(REPO_ROOT, 'packages/agent-kit/package.json'), join(kit, 'package.json'));
  return { root, bin: join(root, 'bin/switchboard.js'), kit, buildSeconds };
}

/** The built package of this test run (built on first call). */
export async function builtPackage(): Promise<BuiltPackage> {
  const key = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);
  const folder = join(tmpdir(), `${PREFIX}${process.ppid}-${key}`);
  const ready = join(folder, 'ready.json');
  const failed = join(folder, 'failed.txt');
  try {
    mkdirSync(folder);
  } catch {
    for (let waited = 0; waited < WAIT_MS; waited += 500) {
      if (existsSync(ready)) return { ...(JSON.parse(readFileSync(ready, 'utf8')) as BuiltPackage), buildSeconds: 0 };
      if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
      await new Promise((wake) => setTimeout(wake, 500));
    }
    throw new Error(`no build appeared in ${folder}`);
  }
  sweep();
  try {
    const built = await build(folder);
    writeFileSync(ready, JSON.stringify(built));
    return built;
  } catch (error) {
    writeFileSync(failed, (error as Error).message);
    throw error;
  }
}
