/**
 * The `switchboard` command line (docs/api.md#commands). This file is the entry point:
 * importing it runs the command named in `process.argv`.
 *
 * Each command lives in its own `*-command.ts` module exporting
 * `runCommand(args, io)`; adding one is one row in `COMMANDS`. Modules are
 * imported lazily so `validate` never loads the server stack.
 */

import { environmentHelp, LLM_ENV_VARS, type EnvVarName } from './env-vars.js';
import type { CliCommandModule, CliIo } from './cli-io.js';

interface CliCommand {
  usage: string;
  summary: string;
  /** Environment variables the command reads (listed by `--help`). */
  env: readonly EnvVarName[];
  /** True when the command loads a registry, whose `${NAME}` references read the environment. */
  readsRegistry: boolean;
  load: () => Promise<CliCommandModule>;
}

/**
 * Exit code for a usage mistake (unknown command, missing argument). Command
 * modules never import this file: it is the entry point, and importing it
 * would run the command line again.
 */
const EXIT_USAGE = 2;

const SERVER_ENV: readonly EnvVarName[] = [
  'DATABASE_URL',
  'REDIS_URL',
  'LOG_LEVEL',
  'SWITCHBOARD_API_KEYS',
  'SWITCHBOARD_ADMIN_KEYS',
  'SWITCHBOARD_DRAIN_GRACE_MS',
  'SWITCHBOARD_WORKERS',
  'SWITCHBOARD_LEASE_TTL_MS',
  'SWITCHBOARD_DATA_KEY',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_SERVICE_NAME',
  ...LLM_ENV_VARS,
];

// The command table. One row per command.
const COMMANDS: Record<string, CliCommand> = {
  validate: {
    usage: 'validate FILE',
    summary: 'check a registry file; print every problem as file:line:col',
    env: [],
    readsRegistry: true,
    load: () => import('./validate-command.js'),
  },
  serve: {
    usage: 'serve [--config F] [--port N] [--host H] [--workers N]',
    summary: 'start the supervisor HTTP/SSE server',
    env: ['SWITCHBOARD_CONFIG', 'PORT', 'HOST', ...SERVER_ENV],
    readsRegistry: true,
    load: () => import('./serve-command.js'),
  },
  'check-agent': {
    usage: 'check-agent <url|agent id> [--config F] [--json]',
    summary: 'run the wire-protocol conformance suite against a live sub-agent',
    env: ['SWITCHBOARD_CONFIG'],
    readsRegistry: true,
    load: () => import('./check-agent-command.js'),
  },
  eval: {
    usage: 'eval FILE [--config F] [--min X] [--json]',
    summary: 'routing evaluation of a labelled JSONL set',
    env: ['SWITCHBOARD_CONFIG', ...LLM_ENV_VARS],
    readsRegistry: true,
    load: () => import('./eval-command.js'),
  },
  replay: {
    usage: 'replay --config NEW.yaml [--base F] [--since 7d] [--json] [...]',
    summary: 'route recorded turns with the live and an edited registry; print what moves',
    env: ['SWITCHBOARD_CONFIG', 'DATABASE_URL', ...LLM_ENV_VARS],
    readsRegistry: true,
    load: () => import('./replay-command.js'),
  },
  review: {
    usage: 'review [--since 7d] [--out FILE] | --apply FILE --config F',
    summary: 'recorded turns worth a label as eval lines; add labelled lines to examples',
    env: ['SWITCHBOARD_CONFIG', 'DATABASE_URL', ...LLM_ENV_VARS],
    readsRegistry: true,
    load: () => import('./review-command.js'),
  },
  demo: {
    usage: 'demo [--port N] [--agent-ports PORTS]',
    summary: 'demo sub-agents + supervisor + chat page, offline',
    env: ['SWITCHBOARD_CONFIG', 'PORT', 'HOST', 'DEMO_AGENT_LATENCY_MS', 'DEMO_HOTEL_PORT', 'DEMO_LIMO_PORT', 'DEMO_FLIGHT_PORT', 'DEMO_WEATHER_PORT', 'DEMO_EXCHANGE_PORT', ...SERVER_ENV],
    readsRegistry: true,
    load: () => import('./demo-command.js'),
  },
};

function usageText(): string {
  const width = Math.max(...Object.values(COMMANDS).map((command) => command.usage.length));
  const rows = Object.values(COMMANDS).map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`);
  return (
    [
      'Usage: switchboard <command> [options]',
      '       switchboard --version',
      '',
      'Commands:',
      ...rows,
      '',
      'Run `switchboard <command> --help` for its options and the environment variables it reads.',
    ].join('\n') + '\n'
  );
}

/** The version in package.json (loaded on demand: `--help` and the commands do not need it). */
async function versionText(): Promise<string> {
  const { packageVersion } = await import('../util/index.js');
  return `switchboard ${packageVersion('unknown')}\n`;
}

/** Runs one command line (without the `node script` prefix) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(usageText());
    return name === undefined ? EXIT_USAGE : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(await versionText());
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr(`switchboard: unknown command "${name}"\n\n${usageText()}`);
    return EXIT_USAGE;
  }
  const module = await command.load();
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${module.HELP ?? `Usage: switchboard ${command.usage}\n`}${environmentHelp(command.env, command.readsRegistry)}`);
    return 0;
  }
  return module.runCommand(args, io);
}

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
}).catch((error: unknown) => {
  process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
process.exitCode = exitCode;
