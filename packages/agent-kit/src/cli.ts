/**
 * `switchboard check-agent <url>` from an agent's own project (`npx switchboard
 * check-agent http://127.0.0.1:7201/invoke`): the conformance suite against a
 * running sub-agent, one line per check, exit 0 when every MUST passes, 1 when
 * one fails, 2 on a usage mistake. Checking an agent by its registry id (its
 * card's headers, timeout and output_schema) is the full Switchboard CLI's job.
 */
import { parseArgs } from 'node:util';
import { formatReport } from './conformance/format-report.js';
import { runConformance } from './conformance/run-conformance.js';

const USAGE = `Usage: switchboard check-agent <url> [options]

Options:
  --inputs JSON        inputs sent with the well-formed requests, e.g. '{"city":"北京"}'
  --header "N: V"      a request header (repeatable), e.g. 'Authorization: Bearer …'
  --side-effects       the agent books or pays: a retry must return the same output (MUST)
  --timeout-ms N       per request (default 10000)
  --json               print the report as JSON
`;

/** Runs the command; returns the exit code. */
export async function main(argv: readonly string[], out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        inputs: { type: 'string' },
        header: { type: 'string', multiple: true },
        'side-effects': { type: 'boolean' },
        'timeout-ms': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    out(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, url, ...rest] = parsed.positionals;
  if (parsed.values.help || command === undefined) {
    out(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  if (command !== 'check-agent' || !url || rest.length > 0 || !/^https?:\/\//.test(url)) {
    out(`expected: check-agent <http(s) url>\n\n${USAGE}`);
    return 2;
  }
  let inputs: Record<string, unknown> = {};
  if (parsed.values.inputs !== undefined) {
    try {
      inputs = JSON.parse(parsed.values.inputs) as Record<string, unknown>;
    } catch {
      inputs = undefined as never;
    }
    if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
      out('--inputs must be a JSON object\n');
      return 2;
    }
  }
  const headers: Record<string, string> = {};
  for (const header of parsed.values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) {
      out(`--header must be "Name: value", got "${header}"\n`);
      return 2;
    }
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const timeoutMs = parsed.values['timeout-ms'] === undefined ? 10_000 : Number(parsed.values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    out('--timeout-ms must be a positive integer\n');
    return 2;
  }
  const report = await runConformance({ url, headers, timeoutMs, requiredKeys: [], inputs, sideEffects: parsed.values['side-effects'] === true });
  out(parsed.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.passed ? 0 : 1;
}
