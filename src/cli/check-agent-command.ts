/**
 * `switchboard check-agent <url|agent id> [--config F] [--json]`: runs the
 * wire-protocol conformance suite against a live sub-agent (docs/api.md#commands).
 * An argument that is not an http(s) URL is an agent id of the registry file.
 * Exit 0 when every MUST check passes, 1 otherwise — including when the agent
 * cannot be checked at all (unknown agent id, unreadable registry, nothing
 * answering at the URL) — and 2 on a usage mistake (no argument, bad option).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport, runA2aConformance, runConformance, servesAgentCard, targetFromCard, targetFromUrl, type ConformanceTarget } from '../conformance/index.js';
import { loadRegistryFile } from '../registry/index.js';
import { safeJsonParse } from '../util/index.js';
// Type-only: importing a value from the entry module would re-enter it.
import type { CliIo } from './cli-io.js';

const EXIT_MUST_FAILED = 1;
const EXIT_USAGE = 2;

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard check-agent <url|agent id> [--config F] [--json] [--inputs JSON] [--timeout-ms N] [--header 'Name: value']

Runs the sub-agent conformance suite (envelope shape and status values,
output_schema, input_required with missing_keys, SSE framing with exactly one
result, idempotent retry with the same task_id, timeout, malformed and
oversized requests) against a live agent. Prints one line per check, graded
MUST or SHOULD.

Exit codes:
  0  every MUST check passed
  1  a MUST check failed, or the agent could not be checked: an unknown agent
     id, a registry file that does not load, or nothing answering at the URL
     (reported as a failed http_status check, the other checks skipped)
  2  usage mistake: no <url|agent id>, more than one, or a bad option

  <url>          the agent's endpoint; the protocol is read from its reply (an
                 A2A agent's base URL, whose Agent Card is at
                 /.well-known/agent-card.json, or the card's own .json URL, gets
                 the A2A checks: card, transport, task outcome, output_schema,
                 input-required, streaming)
  <agent id>     an agent of the registry file: its url, headers, timeout,
                 protocol and output_schema are used, and sample inputs are
                 made from its required_semantic_keys
  --config F     registry file (default: $SWITCHBOARD_CONFIG or agents_config.yaml)
  --json         print the report as JSON
  --inputs JSON  inputs to send (merged over the samples)
  --timeout-ms N per-request timeout (default: the card's, else 10000)
  --header H     extra request header "Name: value" (repeatable), e.g. a token
`;

/** Runs `check-agent`; resolves to the exit code. */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        json: { type: 'boolean' },
        inputs: { type: 'string' },
        'timeout-ms': { type: 'string' },
        header: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr(`switchboard check-agent: ${(error as Error).message}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  const usage = (message: string) => {
    io.stderr(`switchboard check-agent: ${message}\n\n${HELP}`);
    return EXIT_USAGE;
  };
  if (positionals.length !== 1) return usage(positionals.length === 0 ? 'missing <url|agent id>' : 'expected exactly one <url|agent id>');
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) return usage(`--timeout-ms must be a positive integer, got "${values['timeout-ms']}"`);
  let inputs: Record<string, unknown> | undefined;
  if (values.inputs !== undefined) {
    const read = safeJsonParse(values.inputs);
    if (!read.ok || typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)) return usage('--inputs must be a JSON object');
    inputs = read.value as Record<string, unknown>;
  }

  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) return usage(`--header must look like "Name: value", got "${header}"`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }

  const subject = positionals[0]!;
  let target: ConformanceTarget;
  if (/^https?:\/\//i.test(subject)) {
    target = targetFromUrl(subject, { timeoutMs, inputs });
  } else {
    const file = values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml';
    const loaded = await loadRegistryFile(resolve(io.cwd, file), { env: io.env });
    if (!loaded.ok) {
      io.stderr(`switchboard check-agent: cannot check "${subject}": ${file} is not a valid registry (${loaded.issues[0]?.message ?? 'unknown error'}); run \`switchboard validate ${file}\`\n`);
      return EXIT_MUST_FAILED;
    }
    const card = loaded.snapshot.byId.get(subject);
    if (!card) {
      const known = loaded.snapshot.agents.map((agent) => agent.id).join(', ') || 'none';
      io.stderr(`switchboard check-agent: cannot check "${subject}": no such agent in ${file} (agents: ${known}); pass an agent id of that file or an http(s) URL\n`);
      return EXIT_MUST_FAILED;
    }
    target = targetFromCard(card, { timeoutMs, inputs });
  }

  // An A2A agent (registered as a2a, or a URL that serves an Agent Card) gets the A2A checks.
  const a2a = target.protocol === 'a2a' || (target.protocol === undefined && (await servesAgentCard(target.url, Math.min(target.timeoutMs, 5000))));
  const checked = { ...target, headers: { ...target.headers, ...headers } };
  const report = a2a ? await runA2aConformance(checked) : await runConformance(checked);
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.passed ? 0 : EXIT_MUST_FAILED;
}
