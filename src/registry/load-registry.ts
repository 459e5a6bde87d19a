/**
 * Loading a registry file without watching it: parse (with positions), validate
 * against the JSON Schema, cross-check, build. All problems are reported at once;
 * a file with any problem yields no snapshot at all (never half a registry).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { UserError } from '../errors.js';
import { cardsFingerprint, type A2aCardFetcher, type A2aCardMap } from './a2a-cards.js';
import { buildSnapshot } from './build-snapshot.js';
import type { ValidatorCache } from './schema-compiler.js';
import { createConfigShapeValidator, type ConfigShapeValidator } from './config-schema.js';
import type { ConfigIssue, RegistrySnapshot } from './types.js';
import { MAX_REGISTRY_BYTES, parseYamlSource, sourceFromParsed, type YamlSource } from './yaml-source.js';

/** Options shared by every way of loading a registry. */
export interface LoadRegistryOptions {
  /** Where `${VAR}` values come from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Clock for `loadedAt` (tests). */
  now?: () => Date;
  /** Compiled validators reused between loads (a live registry keeps one). */
  validatorCache?: ValidatorCache;
  /** The compiled file-shape validator reused between loads; compiled afresh when absent. */
  shapeValidator?: ConfigShapeValidator;
  /** Agent Cards already fetched for the file's `a2a_card` agents (see `a2a-cards.ts`). */
  a2aCards?: A2aCardMap;
  /** Fetches them (`loadRegistryFile` only); absent = such agents are loaded not routable. */
  a2aCardFetcher?: A2aCardFetcher;
}

/** Outcome of one load. Warnings (deprecated fields, ...) never block a load. */
export type LoadResult =
  | { ok: true; snapshot: RegistrySnapshot; warnings: ConfigIssue[] }
  | { ok: false; issues: ConfigIssue[]; warnings: ConfigIssue[] };

/** Length of the content-hash prefix used as the snapshot version. */
const VERSION_LENGTH = 12;

/** The snapshot version of a file's text: a sha256 prefix. */
export function contentVersion(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, VERSION_LENGTH);
}

/** The version of a snapshot: the file's content hash, combined with the cards' when agents are registered by card. */
export function snapshotVersion(text: string, cards?: A2aCardMap): string {
  const fingerprint = cards ? cardsFingerprint(cards) : '';
  return fingerprint === '' ? contentVersion(text) : contentVersion(`${text}\n#cards:${fingerprint}`);
}

/** Loads a registry from YAML text; `file` is only used to label issues. */
export function loadRegistryText(text: string, file: string, options: LoadRegistryOptions = {}): LoadResult {
  return loadRegistryTextKeepingData(text, file, options).result;
}

/** `loadRegistryText`, also giving the parsed data (plain, structured-cloneable) of a text that parsed. */
export function loadRegistryTextKeepingData(text: string, file: string, options: LoadRegistryOptions = {}): { result: LoadResult; data?: unknown } {
  const source = parseYamlSource(text, file);
  if (source.syntaxIssues.length > 0) return { result: { ok: false, issues: source.syntaxIssues, warnings: [] } };
  return { result: loadRegistrySource(source, text, options, (options.shapeValidator ?? createConfigShapeValidator())(source)), data: source.data };
}

/**
 * Builds a registry from data another thread parsed and checked against the
 * file's schema (the reload worker's good trial load, handed over as a
 * structured clone): no second parse, no second shape check; only the build,
 * whose compiled validators cannot cross threads.
 */
export function loadParsedRegistry(data: unknown, text: string, file: string, options: LoadRegistryOptions = {}): LoadResult {
  return loadRegistrySource(sourceFromParsed(data, text, file), text, options, []);
}

function loadRegistrySource(source: YamlSource, text: string, options: LoadRegistryOptions, shapeIssues: ConfigIssue[]): LoadResult {
  const file = source.file;
  // Cross-checks still run when only some agents are malformed, so one run reports everything.
  const structureBroken = shapeIssues.some((issue) => issue.pointer === '' || issue.pointer === '/agents');
  if (structureBroken) return { ok: false, issues: sortIssues(shapeIssues), warnings: [] };
  const result = buildSnapshot(source, {
    env: options.env ?? process.env,
    version: snapshotVersion(text, options.a2aCards),
    sourcePath: file,
    loadedAt: options.now?.(),
    shapeIssuePointers: shapeIssues.map((issue) => issue.pointer),
    validatorCache: options.validatorCache,
    a2aCards: options.a2aCards,
  });
  const issues = [...shapeIssues, ...(result.ok ? [] : result.issues)];
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues), warnings: sortIssues(result.warnings) };
  if (!result.ok) throw new Error('unreachable: a failed build always carries issues');
  return { ok: true, snapshot: result.snapshot, warnings: sortIssues(result.warnings) };
}

/** Reads and loads a registry file. A missing or unreadable file is one issue, not a throw. */
export async function loadRegistryFile(path: string, options: LoadRegistryOptions = {}): Promise<LoadResult> {
  const read = await readRegistryText(path);
  if (!read.ok) return { ok: false, issues: [read.issue], warnings: [] };
  const a2aCards = options.a2aCards ?? (await options.a2aCardFetcher?.resolveFor(read.text, options.env ?? process.env));
  return loadRegistryText(read.text, path, { ...options, a2aCards });
}

/**
 * Reads a registry file's text, refusing one larger than `MAX_REGISTRY_BYTES`
 * before reading it whole. Never throws.
 */
export async function readRegistryText(path: string): Promise<{ ok: true; text: string } | { ok: false; issue: ConfigIssue }> {
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_REGISTRY_BYTES) {
        return { ok: false, issue: { file: path, line: 1, col: 1, pointer: '', message: `registry file is too large: ${size} bytes (limit ${MAX_REGISTRY_BYTES})` } };
      }
      return { ok: true, text: await handle.readFile('utf8') };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ok: false, issue: readIssue(path, error) };
  }
}

/** The issue recorded when a registry file cannot be read at all. */
export function readIssue(path: string, error: unknown): ConfigIssue {
  const code = (error as NodeJS.ErrnoException).code;
  const message =
    code === 'ENOENT'
      ? `registry file not found: ${path}`
      : code === 'EISDIR'
        ? `registry path is a directory, not a file: ${path}`
        : code === 'EACCES'
          ? `registry file is not readable (permission denied): ${path}`
          : `cannot read registry file ${path}: ${(error as Error).message}`;
  return { file: path, line: 0, col: 0, pointer: '', message };
}

/** Formats one issue as `file:line:col  /json/pointer  message`. */
export function formatIssue(issue: ConfigIssue): string {
  return `${issue.file}:${issue.line}:${issue.col}  ${issue.pointer === '' ? '/' : issue.pointer}  ${issue.message}`;
}

/** The error thrown when a registry cannot be loaded at start: its message lists every issue. */
export function configInvalidError(path: string, issues: readonly ConfigIssue[]): UserError {
  const lines = issues.map(formatIssue);
  return new UserError('CONFIG_INVALID', `registry ${path} is invalid (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines.join('\n')}`, {
    issues: issues.map((issue) => ({ ...issue })),
  });
}

function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return [...issues].sort((left, right) => left.line - right.line || left.col - right.col);
}
