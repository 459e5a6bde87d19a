/**
 * The name half of the layering check: some names have one home room (`OWNED_NAMES` in
 * .dependency-cruiser.cjs), and dependency-cruiser sees files, not names. This reads every
 * import, re-export and type declaration of the TypeScript files under a tree and reports each
 * owned name that is declared outside its room, imported from a file outside its room, or
 * re-exported by another room.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The TypeScript files under `dir` (node_modules skipped), as absolute paths. */
async function typeScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    }),
  );
  return nested.flat();
}

/** The repo-relative path (with `/`) a relative module specifier of `file` names; undefined for a package. */
function target(root: string, file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(root, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))).split(sep).join('/');
}

/**
 * Every breach of `owned` (name → room under src/) in the TypeScript files under `dirs` of `root`,
 * one line each: `<file>: <name> <what>`.
 */
export async function findOwnedNameBreaches(root: string, owned: Readonly<Record<string, string>>, dirs: readonly string[] = ['src', 'test', 'bench']): Promise<string[]> {
  const files = (await Promise.all(dirs.map((dir) => typeScriptFiles(join(root, dir))))).flat();
  const breaches: string[] = [];
  for (const file of files) {
    const path = relative(root, file).split(sep).join('/');
    const text = await readFile(file, 'utf8');
    if (!Object.keys(owned).some((name) => text.includes(name))) continue;
    const inRoom = (room: string, at: string | undefined) => at !== undefined && at.startsWith(`src/${room}/`);
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    for (const statement of source.statements) {
      if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
        const room = owned[statement.name.text];
        if (room !== undefined && !inRoom(room, path)) breaches.push(`${path}: ${statement.name.text} declared outside src/${room}/`);
      }
      if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        const bindings = statement.importClause?.namedBindings;
        if (!bindings || !ts.isNamedImports(bindings)) continue;
        const from = target(root, file, statement.moduleSpecifier.text);
        for (const element of bindings.elements) {
          const name = (element.propertyName ?? element.name).text;
          const room = owned[name];
          if (room !== undefined && !inRoom(room, from)) breaches.push(`${path}: ${name} imported from ${statement.moduleSpecifier.text}, not from src/${room}/`);
        }
      }
      if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          const name = (element.propertyName ?? element.name).text;
          const room = owned[name];
          if (room !== undefined && !inRoom(room, path)) breaches.push(`${path}: ${name} re-exported outside src/${room}/`);
        }
      }
    }
  }
  return breaches.sort();
}
