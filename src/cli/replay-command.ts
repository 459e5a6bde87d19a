/**
 * `switchboard replay --config NEW.yaml [--base F] [--since 7d] [--limit N]
 * [--tenant T] [--json] [--min-unchanged X]` (docs/registry-changes.md): the
 * recorded turns of the store routed by the live registry and by NEW, and
 * what moves. Exit 0, 1 when the share unchanged is below `--min-unchanged`
 * (or a registry or the store cannot be read), 2 on a usage mistake.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReplayReport, replayJson } from '../eval/index.js';
import { formatIssue, loadRegistryFile } from '../registry/index.js';
import { isValidId } from '../id-patterns.js';
import type { CliIo } from './cli-io.js';
import { openRecordedStore, parseSince, replayStore } from './recorded-store.js';

const EXIT_USAGE = 2;

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard replay --config NEW.yaml [--base F] [--since 7d] [--limit N]
                         [--tenant T] [--json] [--min-unchanged 0.95]

Replays recorded traffic against an edited registry before it ships. The user
messages of the turns stored in DATABASE_URL (masked, as stored) are routed by
the live registry (--base, default $SWITCHBOARD_CONFIG or agents_config.yaml)
and by NEW, with the recogniser the server uses (offline, or the model when
LLM_BASE_URL and LLM_MODEL are set), standalone, without calling any
sub-agent. Prints the share of turns whose routing is unchanged, per agent the
turns gained and lost, the moves (before → after: an agent set, "none", or
"clarify") and each changed message; turns that were clarified, corrected or
escalated are marked. Turns answered from body fields alone are skipped.

  --config F          the edited registry (required)
  --base F            the live registry (default $SWITCHBOARD_CONFIG or agents_config.yaml)
  --since S           only turns started since: 7d, 24h, 30m, 2w or a date (default: all stored)
  --limit N           at most the N newest turns
  --tenant T          only this tenant's turns ("" for the default tenant; default: all)
  --min-unchanged X   exit 1 when the share unchanged is below X (0..1, default 0)
  --json              machine-readable output
`;

/** Runs `replay`; resolves to the exit code. */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  let values: { config?: string; base?: string; since?: string; limit?: string; tenant?: string; json?: boolean; 'min-unchanged'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        config: { type: 'string', short: 'c' },
        base: { type: 'string' },
        since: { type: 'string' },
        limit: { type: 'string' },
        tenant: { type: 'string' },
        json: { type: 'boolean' },
        'min-unchanged': { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.stderr(`switchboard replay: ${(error as Error).message}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  const usage = (message: string) => {
    io.stderr(`switchboard replay: ${message}\n`);
    return EXIT_USAGE;
  };
  if (values.config === undefined) return usage('missing --config NEW.yaml (the edited registry)');
  const minText = values['min-unchanged'];
  const min = minText === undefined ? 0 : Number(minText);
  if (minText !== undefined && (minText.trim() === '' || !Number.isFinite(min) || min < 0 || min > 1)) return usage(`--min-unchanged must be a number from 0 to 1 (got "${minText}")`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return usage(`--limit must be a whole number of turns, at least 1 (got "${values.limit}")`);
  const since = values.since === undefined ? undefined : parseSince(values.since);
  if (since && !since.ok) return usage(since.message);
  if (values.tenant !== undefined && values.tenant !== '' && !isValidId('tenant', values.tenant)) return usage(`--tenant "${values.tenant}" is not a tenant name`);

  const fail = (message: string) => {
    if (values.json) io.stdout(`${JSON.stringify({ error: { code: 'REPLAY_FAILED', message } })}\n`);
    io.stderr(`switchboard replay: ${message}\n`);
    return 1;
  };
  const baseFile = values.base ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml';
  const base = await loadRegistryFile(resolve(io.cwd, baseFile), { env: io.env });
  if (!base.ok) return fail(`live registry ${baseFile} is invalid:\n${base.issues.map(formatIssue).join('\n')}`);
  const next = await loadRegistryFile(resolve(io.cwd, values.config), { env: io.env });
  if (!next.ok) return fail(`registry ${values.config} is invalid:\n${next.issues.map(formatIssue).join('\n')}`);

  let store;
  try {
    store = await openRecordedStore(io);
  } catch (error) {
    return fail((error as Error).message);
  }
  try {
    const { result, mode, ms } = await replayStore(io, {
      storage: store.storage,
      base: base.snapshot,
      next: next.snapshot,
      ...(since?.ok ? { since: since.iso } : {}),
      ...(values.tenant !== undefined ? { tenant: values.tenant } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    const pass = result.shareUnchanged >= min;
    if (values.json) {
      io.stdout(`${JSON.stringify({ base: baseFile, config: values.config, store: store.name, mode, since: since?.ok ? since.iso : null, tenant: values.tenant ?? null, min_unchanged: min, pass, ms, ...replayJson(result) })}\n`);
    } else {
      io.stdout(formatReplayReport(result, { base: baseFile, config: values.config, store: store.name, mode, ...(since?.ok ? { since: since.iso } : {}), ...(values.tenant !== undefined ? { tenant: values.tenant } : {}) }));
    }
    if (result.turns === 0) io.stderr(`switchboard replay: no recorded turn with a message in ${store.name}${since?.ok ? ` since ${since.iso}` : ''}\n`);
    if (!pass) io.stderr(`switchboard replay: ${(result.shareUnchanged * 100).toFixed(1)}% unchanged is below --min-unchanged ${(min * 100).toFixed(1)}%\n`);
    return pass ? 0 : 1;
  } finally {
    await store.storage.close();
  }
}
