/**
 * `switchboard validate FILE`: loads a registry exactly as the server would
 * (schema, cross-checks, `${VAR}` resolution from the environment) and prints
 * every problem as `file:line:col  /json/pointer  message`.
 */
import { resolve } from 'node:path';
import { formatIssue, loadRegistryFile } from '../registry/index.js';
import { formatOverlapMoves, overlapMoves } from './overlap-moves.js';
// Type-only: importing a value from the entry module would re-enter it.
import type { CliIo } from './cli-io.js';

const EXIT_USAGE = 2;

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard validate FILE

Checks a registry file (agents_config.yaml) against the schema and the
cross-checks (unique ids, depends_on, regexes, JSON Schemas, \${VAR}s).
Exit 0 and one OK line when valid; otherwise every problem on stderr as
  file:line:col  /json/pointer  message
and exit 1. Warnings (overlapping agents, unmarked side effects, unknown
widgets keys) do not fail the file; for overlapping agents it also routes
their colliding examples and lists those that no longer reach their own
agent: what \`switchboard replay\` would move.
`;

/** Runs `validate`; resolves to the exit code (0 valid, 1 invalid or unreadable, 2 usage). */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(HELP);
    return 0;
  }
  const unknownOption = args.find((argument) => argument.startsWith('-'));
  if (unknownOption !== undefined) {
    io.stderr(`switchboard validate: unknown option ${unknownOption}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  if (args.length !== 1) {
    io.stderr(`switchboard validate: ${args.length === 0 ? 'missing FILE' : 'expected exactly one FILE'}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  const file = args[0] as string;
  const result = await loadRegistryFile(resolve(io.cwd, file), { env: io.env });
  // Report the path as the user typed it.
  const relabel = <T extends { file: string }>(issue: T): T => ({ ...issue, file });
  for (const warning of result.warnings) io.stderr(`${formatIssue(relabel({ ...warning, message: `warning: ${warning.message}` }))}\n`);
  if (!result.ok) {
    const readFailure = result.issues.length === 1 && result.issues[0]?.line === 0;
    if (readFailure) {
      io.stderr(`switchboard validate: ${(result.issues[0]?.message ?? '').replace(resolve(io.cwd, file), file)}\n`);
      return 1;
    }
    for (const issue of result.issues) io.stderr(`${formatIssue(relabel(issue))}\n`);
    io.stderr(`${file}: ${result.issues.length} problem${result.issues.length === 1 ? '' : 's'}; the registry is invalid\n`);
    return 1;
  }
  const { snapshot } = result;
  for (const line of formatOverlapMoves(file, await overlapMoves(snapshot))) io.stderr(`${line}\n`);
  io.stdout(`OK ${file}: ${snapshot.agents.length} agents (${snapshot.enabledAgents.length} enabled), version ${snapshot.version}\n`);
  return 0;
}
