/**
 * `switchboard review [--since 7d] [--tenant T] [--out FILE]` writes the
 * recorded turns worth a label as eval lines (eval/review-lines.ts);
 * `switchboard review --apply FILE --config F [--dry-run]` adds the labelled
 * lines to the named agents' `examples`, keeping the file's comments and
 * layout (registry/add-examples.ts), validates the result, prints its replay
 * against the file as it was, then writes it; `--dry-run` prints the diff only.
 * Exit 0, 1 when a file, the registry or the store cannot be read or the
 * result is invalid, 2 on a usage mistake. Docs: docs/registry-changes.md.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { collectReview, formatReplayReport, parseEvalSet } from '../eval/index.js';
import { isValidId } from '../id-patterns.js';
import { addExamples, formatIssue, insertionDiff, loadRegistryText } from '../registry/index.js';
import { fileErrorText, type CliIo } from './cli-io.js';
import { openRecordedStore, parseSince, replayStore } from './recorded-store.js';

const EXIT_USAGE = 2;

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard review [--since 7d] [--tenant T] [--out FILE]
       switchboard review --apply FILE --config F [--dry-run]

Without --apply: writes the recorded turns (DATABASE_URL) that ended out of
scope, with a clarification (and the option chosen), a correction, a failure or
an escalation as eval lines to label (JSONL, masked as stored), one line per
distinct message:
  { "query": "...", "agents": [proposed label],
    "review": { "why": [...], "routed": [...], "outcome": "...", "turn_id": "...",
                "session_id": "...", "at": "...", "turns": N,
                "clarification": { "options": [...], "chosen": "agent_id" },
                "proposed": "chosen" | "routed" } }
"agents" proposes the option the user chose for a clarification, else what
was routed ([] = nothing). Label by editing "agents"; the file is a valid
\`switchboard eval\` set.

With --apply: each line whose "agents" differs from what was routed (or any
line without "review") adds its query to the examples of the agents it names,
keeping the registry's comments, order and layout. The result is validated and
its replay against the file as it was printed, then the file is written.

  --since S      only turns started since: 7d, 24h, 30m, 2w or a date (default 7d)
  --tenant T     only this tenant's turns ("" for the default tenant; default: all)
  --out FILE     write the lines to FILE (default: stdout)
  --apply FILE   the labelled lines to add
  --config F     the registry to edit (with --apply; default $SWITCHBOARD_CONFIG or agents_config.yaml)
  --dry-run      with --apply: print the diff, write nothing, replay nothing
`;

type Values = { since?: string; tenant?: string; out?: string; apply?: string; config?: string; 'dry-run'?: boolean };

/** Runs `review`; resolves to the exit code. */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  let values: Values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        since: { type: 'string' },
        tenant: { type: 'string' },
        out: { type: 'string', short: 'o' },
        apply: { type: 'string' },
        config: { type: 'string', short: 'c' },
        'dry-run': { type: 'boolean' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.stderr(`switchboard review: ${(error as Error).message}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  const usage = (message: string) => {
    io.stderr(`switchboard review: ${message}\n`);
    return EXIT_USAGE;
  };
  if (values.apply !== undefined) {
    if (values.since !== undefined || values.out !== undefined || values.tenant !== undefined) return usage('--apply takes --config and --dry-run only');
    return applyLabels(values.apply, values, io);
  }
  if (values.config !== undefined || values['dry-run']) return usage('--config and --dry-run go with --apply FILE');
  const since = parseSince(values.since ?? '7d');
  if (!since.ok) return usage(since.message);
  if (values.tenant !== undefined && values.tenant !== '' && !isValidId('tenant', values.tenant)) return usage(`--tenant "${values.tenant}" is not a tenant name`);

  let store;
  try {
    store = await openRecordedStore(io);
  } catch (error) {
    io.stderr(`switchboard review: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    const review = await collectReview({ history: store.storage.history, since: since.iso, ...(values.tenant !== undefined ? { tenant: values.tenant } : {}) });
    const text = review.lines.map((line) => JSON.stringify(line)).join('\n') + (review.lines.length > 0 ? '\n' : '');
    if (values.out !== undefined) await writeFile(resolve(io.cwd, values.out), text, 'utf8');
    else io.stdout(text);
    const marks = Object.entries(review.byMark).map(([mark, count]) => `${mark} ${count}`).join(', ');
    io.stderr(`switchboard review: ${review.lines.length} line(s) to label from ${review.read} turns since ${since.iso} in ${store.name}${marks ? ` (${marks})` : ''}${values.out !== undefined ? `; written to ${values.out}` : ''}\n`);
    return 0;
  } finally {
    await store.storage.close();
  }
}

/** `--apply FILE`: labelled lines into the registry's examples. */
async function applyLabels(file: string, values: Values, io: CliIo): Promise<number> {
  const fail = (message: string) => {
    io.stderr(`switchboard review --apply: ${message}\n`);
    return 1;
  };
  const configFile = values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml';
  const configPath = resolve(io.cwd, configFile);
  let registryText: string;
  let linesText: string;
  try {
    registryText = await readFile(configPath, 'utf8');
    linesText = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    return fail(`cannot read ${(error as NodeJS.ErrnoException).path ?? file}: ${fileErrorText(error)}`);
  }
  const old = loadRegistryText(registryText, configFile, { env: io.env });
  if (!old.ok) return fail(`registry ${configFile} is invalid:\n${old.issues.map(formatIssue).join('\n')}`);
  const parsed = parseEvalSet(linesText, new Set(old.snapshot.agents.map((card) => card.id)));
  if (!parsed.ok) {
    for (const issue of parsed.issues) io.stderr(`${file}:${issue.line}: ${issue.message}\n`);
    return fail(`${file} has ${parsed.issues.length} problem(s); nothing was changed`);
  }
  const routedByLine = routedOfLines(linesText);
  const additions = new Map<string, string[]>();
  let skipped = 0;
  for (const line of parsed.cases) {
    const routed = routedByLine.get(line.line);
    const unchanged = routed !== undefined && [...routed].sort().join('\u0000') === [...line.agents].sort().join('\u0000');
    if (line.agents.length === 0 || unchanged) {
      skipped += 1;
      continue;
    }
    for (const agent of line.agents) additions.set(agent, [...(additions.get(agent) ?? []), line.query]);
  }
  const edited = addExamples(registryText, additions);
  if (!edited.ok) return fail(edited.message);
  for (const { agent, example } of edited.alreadyThere) io.stderr(`already an example of ${agent}: ${example}\n`);
  const summary = `${edited.added.length} example(s) added to ${new Set(edited.added.map((entry) => entry.agent)).size} agent(s); ${skipped} line(s) left out (label unchanged or out of scope)`;
  if (edited.added.length === 0) {
    io.stdout(`${summary}; ${configFile} unchanged\n`);
    return 0;
  }
  const next = loadRegistryText(edited.text, configFile, { env: io.env });
  if (!next.ok) return fail(`the edited registry would be invalid; nothing was written:\n${next.issues.map(formatIssue).join('\n')}`);
  io.stdout(insertionDiff(registryText, edited.text, configFile));
  if (values['dry-run']) {
    io.stdout(`${summary}; dry run: nothing written\n`);
    return 0;
  }
  let store;
  try {
    store = await openRecordedStore(io);
  } catch (error) {
    io.stderr(`switchboard review --apply: replay skipped: ${(error as Error).message}\n`);
  }
  if (store) {
    try {
      const { result, mode } = await replayStore(io, { storage: store.storage, base: old.snapshot, next: next.snapshot });
      io.stdout(`\n${formatReplayReport(result, { base: `${configFile} as it is`, config: `${configFile} with the labels`, store: store.name, mode })}`);
    } finally {
      await store.storage.close();
    }
  }
  await writeFile(configPath, edited.text, 'utf8');
  io.stdout(`${summary}; ${configFile} written\n`);
  return 0;
}

/** `review.routed` of each line that has one, by line number. */
function routedOfLines(text: string): Map<number, string[]> {
  const routed = new Map<number, string[]>();
  text.split(/\r?\n/u).forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('//')) return;
    try {
      const value = JSON.parse(trimmed) as { review?: { routed?: unknown } };
      const list = value.review?.routed;
      if (Array.isArray(list) && list.every((item) => typeof item === 'string')) routed.set(index + 1, list as string[]);
    } catch {
      // parseEvalSet has reported it.
    }
  });
  return routed;
}
