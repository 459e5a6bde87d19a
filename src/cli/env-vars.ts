/**
 * The environment variables the commands read, each explained once, so every
 * command's `--help` lists the ones it reads from one table.
 */

/** Every environment variable a command reads, with its meaning and default. */
export const ENV_VARS = {
  SWITCHBOARD_CONFIG: 'registry file (default ./agents_config.yaml; --config wins)',
  PORT: 'HTTP port (default 8080; --port wins)',
  HOST: 'address to listen on (serve: 0.0.0.0, demo: 127.0.0.1; --host wins)',
  DATABASE_URL: 'storage: sqlite:<path> (default sqlite:./data/switchboard.db) or postgres://...',
  REDIS_URL: 'shared state for several replicas (leases, caches, rate limits); unset = in-process',
  LOG_LEVEL: 'JSON log level on stdout: trace, debug, info (default), warn, error, silent',
  SWITCHBOARD_API_KEYS: 'comma list of key or key=tenant; /v1 calls and /metrics then need authorization: Bearer <key> (default open)',
  SWITCHBOARD_ADMIN_KEYS: 'comma list of keys of SWITCHBOARD_API_KEYS (key or key=tenant) that may read /v1/turns and the console, within their tenant (unset: none; with no API keys, loopback only)',
  SWITCHBOARD_DRAIN_GRACE_MS: 'how long shutdown lets running turns finish (--drain-grace-ms wins)',
  SWITCHBOARD_WORKERS: 'processes sharing the port (default: the number of cores on PostgreSQL, 1 on SQLite; --workers wins)',
  SWITCHBOARD_LEASE_TTL_MS: 'how long a replica holds a session turn lease without renewing it',
  SWITCHBOARD_DATA_KEY: 'secret sealing the personal values of parked tasks at rest; the same on every replica (unset: a key drawn once and kept in the database)',
  LLM_BASE_URL: 'OpenAI-compatible endpoint; unset = offline matcher',
  LLM_API_KEY: 'key for LLM_BASE_URL',
  LLM_MODEL: 'model for planning and business answers',
  LLM_SMALL_MODEL: 'cheaper model for simple and short turns (default LLM_MODEL)',
  LLM_TIMEOUT_MS: 'per model call (default 20000)',
  LLM_MAX_RETRIES: 'retries of a failed model call (default 2)',
  LLM_JSON_MODE: 'json_schema | json_object | prompt (default: step down by itself)',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'OpenTelemetry collector base URL (spans go to <url>/v1/traces over OTLP/HTTP JSON); unset = nothing exported, nothing loaded',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'full traces URL instead of OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces',
  OTEL_SERVICE_NAME: 'service.name of the exported spans (default switchboard)',
  DEMO_AGENT_LATENCY_MS: 'simulated latency of the demo sub-agents (default 300)',
  DEMO_HOTEL_PORT: 'port of the demo hotel agent (default 7101; --agent-ports wins; the demo registry reads it too)',
  DEMO_LIMO_PORT: 'port of the demo airport-transfer agent (default 7102)',
  DEMO_FLIGHT_PORT: 'port of the demo flight agent (default 7103)',
  DEMO_WEATHER_PORT: 'port of the demo weather agent (default 7104)',
  DEMO_EXCHANGE_PORT: 'port of the demo A2A currency-exchange agent (default 7105)',
} as const;

/** Name of a documented environment variable. */
export type EnvVarName = keyof typeof ENV_VARS;

/** The model gateway's variables, read by every command that may call a model. */
export const LLM_ENV_VARS: readonly EnvVarName[] = [
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'LLM_MODEL',
  'LLM_SMALL_MODEL',
  'LLM_TIMEOUT_MS',
  'LLM_MAX_RETRIES',
  'LLM_JSON_MODE',
];

/** The "Environment" section of a command's help. */
export function environmentHelp(names: readonly EnvVarName[], readsRegistryReferences: boolean): string {
  const width = Math.max(0, ...names.map((name) => name.length));
  const lines = names.map((name) => `  ${name.padEnd(width)}  ${ENV_VARS[name]}`);
  if (readsRegistryReferences) lines.push('  ${NAME} in the registry file are resolved from the environment too');
  return lines.length === 0 ? '' : `\nEnvironment:\n${lines.join('\n')}\n`;
}
