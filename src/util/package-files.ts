/**
 * Files the package ships beside its code (`schemas/`, `public/`, `package.json`),
 * found from the package's root: the nearest folder above this module that
 * holds a `package.json`. The answer is the same whether the code runs from the
 * TypeScript sources (`src/util/`) or from the build (`dist/src/util/`), in a
 * checkout or installed under `node_modules/`.
 */
import { existsSync, readFileSync } from 'node:fs';

let root: URL | undefined;

function findRoot(): URL {
  let dir = new URL('./', import.meta.url);
  for (;;) {
    if (existsSync(new URL('package.json', dir))) return dir;
    const parent = new URL('../', dir);
    if (parent.href === dir.href) throw new Error(`no package.json above ${import.meta.url}`);
    dir = parent;
  }
}

/** The URL of a file shipped with the package, `relative` to its root (e.g. `schemas/agent-reply.schema.json`). */
export function packageFileUrl(relative: string): URL {
  root ??= findRoot();
  return new URL(relative, root);
}

/** The package's version (`package.json`), or `fallback` when it has none. */
export function packageVersion(fallback = '0.0.0'): string {
  const manifest = JSON.parse(readFileSync(packageFileUrl('package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? fallback;
}
