/**
 * The live registry: loads the file once, then watches it and swaps in a new
 * frozen snapshot by one reference assignment after each good edit.
 *
 * The directory is watched rather than the file, because editors that save by
 * writing a temp file and renaming it over the original (and tools that delete
 * then recreate) replace the inode a file watch would be attached to. Events
 * are debounced; reloads never overlap; a bad edit keeps the last good snapshot
 * live and is reported through `lastError()` until a good load clears it.
 */
import { basename, dirname, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../logger.js';
import { createConfigShapeValidator } from './config-schema.js';
import { createValidatorCache } from './schema-compiler.js';
import { diffSnapshots, isEmptyDiff } from './diff-snapshots.js';
import { createA2aCardFetcher, type A2aCardFetcher } from './a2a-cards.js';
import { createRegistryLoadWorker } from './load-worker.js';
import { configInvalidError, contentVersion, formatIssue, loadParsedRegistry, loadRegistryFile, readRegistryText, snapshotVersion, type LoadResult } from './load-registry.js';
import type { ConfigIssue, LastLoadError, Registry, RegistryDiff, RegistrySnapshot } from './types.js';

/** Options of `createRegistry`. */
export interface CreateRegistryOptions {
  /** The registry file (docs/api.md#registry-file). */
  path: string;
  logger: Logger;
  /** Where `${VAR}` values come from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Quiet period after the last file event before reloading. Default 100 ms. */
  debounceMs?: number;
  /** false = load once, never watch (tests, one-shot tools). Default true. */
  watch?: boolean;
  /**
   * Work a new snapshot needs before it goes live (e.g. training the offline
   * recogniser on its cards). Runs on the first load and on every reload
   * before the swap, off the request path; a throw is logged and the snapshot
   * still goes live (the work is then done on first use).
   */
  prepare?: (snapshot: RegistrySnapshot) => void;
  /**
   * Fetches the Agent Cards of `a2a_card` agents before each load (default: a
   * fetcher without the resolved-address check; the server hands in one with it).
   */
  a2aCardFetcher?: A2aCardFetcher;
  /** Longest a reload may parse and build in its worker before it is refused. Default 10000 ms. */
  reloadTimeoutMs?: number;
  /**
   * Told the outcome of every reload attempt after the first load: `applied`
   * (a new version went live), `rejected` (the last good one stays) or
   * `unchanged` (the file holds the live version).
   */
  onReloadOutcome?: (outcome: ReloadOutcome) => void;
}

/** What one reload attempt ended in. */
export type ReloadOutcome = 'applied' | 'rejected' | 'unchanged';

/** A live registry that can also be asked to re-read its file now (e.g. on SIGHUP). */
export interface WatchedRegistry extends Registry {
  /** Re-reads the file now; resolves once that load has been applied or rejected. */
  reload(): Promise<void>;
}

type ReloadListener = (next: RegistrySnapshot, previous: RegistrySnapshot, diff: RegistryDiff) => void;

/**
 * Loads the registry and starts watching it. The first load failing throws
 * `UserError('CONFIG_INVALID')` whose message lists every issue.
 */
export async function createRegistry(options: CreateRegistryOptions): Promise<WatchedRegistry> {
  const { path, logger } = options;
  const env = options.env ?? process.env;
  const debounceMs = options.debounceMs ?? 100;

  const validatorCache = createValidatorCache();
  const trialLoads = createRegistryLoadWorker({ timeoutMs: options.reloadTimeoutMs });
  const shapeValidator = createConfigShapeValidator();
  const cardFetcher = options.a2aCardFetcher ?? createA2aCardFetcher();
  const initial = await loadRegistryFile(path, { env, validatorCache, shapeValidator, a2aCardFetcher: cardFetcher });
  logWarnings(logger, initial.warnings);
  if (!initial.ok) throw configInvalidError(path, initial.issues);

  const prepare = (snapshot: RegistrySnapshot): void => {
    if (!options.prepare) return;
    try {
      options.prepare(snapshot);
    } catch (error) {
      logger.error({ err: error, version: snapshot.version }, 'registry snapshot preparation failed; it will be done on first use');
    }
  };
  prepare(initial.snapshot);
  logCardErrors(logger, initial.snapshot);
  let current = initial.snapshot;
  let lastError: LastLoadError | null = null;
  const listeners = new Set<ReloadListener>();
  logger.info({ version: current.version, agents: current.agents.length, enabled: current.enabledAgents.length, file: path }, 'registry loaded');
  if (options.watch !== false) trialLoads.warm();

  const tell = (outcome: ReloadOutcome): void => {
    try {
      options.onReloadOutcome?.(outcome);
    } catch (error) {
      logger.error({ err: error }, 'registry reload outcome listener failed');
    }
  };

  const reject = (issues: readonly ConfigIssue[]): void => {
    tell('rejected');
    const first = issues[0] as ConfigIssue;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    lastError = {
      file: first.file,
      line: first.line,
      col: first.col,
      message: `${first.message}${more}`,
      issues: issues.map((issue) => Object.freeze({ ...issue })),
      at: new Date().toISOString(),
    };
    logger.error(
      { file: path, keptVersion: current.version, issues: issues.map(formatIssue) },
      `registry reload rejected (${issues.length} problem${issues.length === 1 ? '' : 's'}); keeping version ${current.version}`,
    );
  };

  const loadNow = async (): Promise<void> => {
    const read = await readRegistryText(path);
    if (!read.ok) {
      reject([read.issue]);
      return;
    }
    const { text } = read;
    // Cards are fetched (or taken from their cache) on every reload; a changed card is a new version.
    const a2aCards = await cardFetcher.resolveFor(text, env);
    if (snapshotVersion(text, a2aCards) === current.version) {
      if (lastError) logger.info({ version: current.version }, 'registry file restored to the live version');
      lastError = null;
      tell('unchanged');
      return;
    }
    // The text is first parsed and built in a worker with a time and memory limit: a file that would stall the
    // event loop is refused there and never loaded here.
    const trial = await trialLoads.check(text, path, env);
    if (!trial.ok) {
      reject(trial.issues);
      return;
    }
    let result: LoadResult;
    try {
      // Built from the worker's parse (a structured clone of the data it checked): the text is parsed once per reload.
      result = loadParsedRegistry(trial.data, text, path, { env, validatorCache, a2aCards });
    } catch (error) {
      // A load that throws is still a rejected edit: it must show in lastError.
      reject([{ file: path, line: 1, col: 1, pointer: '', message: `registry could not be loaded: ${(error as Error).message}` }]);
      return;
    }
    logWarnings(logger, result.warnings);
    if (!result.ok) {
      reject(result.issues);
      return;
    }
    prepare(result.snapshot);
    logCardErrors(logger, result.snapshot);
    const previous = current;
    const diff = diffSnapshots(previous, result.snapshot);
    current = result.snapshot;
    lastError = null;
    tell('applied');
    logger.info(
      { from: previous.version, to: current.version, ...diff },
      `registry reloaded ${previous.version} → ${current.version}${isEmptyDiff(diff) ? ' (no agent changes)' : ''}`,
    );
    for (const listener of listeners) {
      try {
        listener(current, previous, diff);
      } catch (error) {
        logger.error({ err: error }, 'registry reload listener failed');
      }
    }
  };

  // Serialised reloads: an event during a load queues exactly one more load.
  let running: Promise<void> | null = null;
  let queued = false;
  let waiters: (() => void)[] = [];
  const runLoad = (): Promise<void> => {
    if (running) {
      queued = true;
      return new Promise((resolveWaiter) => waiters.push(resolveWaiter));
    }
    running = loadNow()
      .catch((error: unknown) => logger.error({ err: error }, 'registry reload failed unexpectedly'))
      .finally(() => {
        running = null;
        if (queued) {
          queued = false;
          const toWake = waiters;
          waiters = [];
          void runLoad().then(() => toWake.forEach((wake) => wake()));
        }
      });
    return running;
  };

  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void runLoad(), debounceMs);
  };

  let watcher: FSWatcher | undefined;
  if (options.watch !== false) {
    const absolutePath = resolve(path);
    const directory = dirname(absolutePath);
    const fileName = basename(absolutePath);
    watcher = watch(directory, {
      depth: 0,
      ignoreInitial: true,
      ignored: (candidate: string) => candidate !== directory && candidate !== absolutePath,
    });
    watcher.on('all', (event, changedPath) => {
      if (basename(changedPath) === fileName) schedule();
      else if (event === 'unlinkDir' && changedPath === directory) schedule();
    });
    // chokidar drops a `change` that follows another within 50 ms; raw fs events
    // are not throttled, so a quick second save (or the tail of a slow write) is
    // never missed. The debounce above absorbs the extra events.
    watcher.on('raw', (_event, rawPath) => {
      if (typeof rawPath === 'string' && basename(rawPath) === fileName) schedule();
    });
    watcher.on('error', (error) => logger.error({ err: error }, 'registry watcher error'));
    await new Promise<void>((resolveReady) => watcher?.once('ready', () => resolveReady()));
  }

  return {
    current: () => current,
    lastError: () => lastError,
    onReload(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload: () => runLoad(),
    async close() {
      closed = true;
      clearTimeout(timer);
      listeners.clear();
      await watcher?.close();
      await running;
      await trialLoads.close();
    },
  };
}

/** A registry fixed to one snapshot (tests, tools): never reloads, never fails. */
export function createStaticRegistry(snapshot: RegistrySnapshot): Registry {
  return {
    current: () => snapshot,
    lastError: () => null,
    onReload: () => () => undefined,
    close: async () => undefined,
  };
}

/** One warning per agent whose Agent Card could not be fetched (the agent is not routable, or served from an earlier copy). */
function logCardErrors(logger: Logger, snapshot: RegistrySnapshot): void {
  for (const card of snapshot.agents) {
    if (card.a2aCard?.error) logger.warn({ agent: card.id, version: snapshot.version }, `registry: ${card.a2aCard.error}`);
  }
}

function logWarnings(logger: Logger, warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings) logger.warn({ file: warning.file, pointer: warning.pointer }, `registry warning: ${formatIssue(warning)}`);
}
