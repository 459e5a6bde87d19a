/**
 * JSON logs through pino. Components receive a logger (default: this root one)
 * rather than importing a singleton, so tests can pass a silent one.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Creates the process logger; level from `LOG_LEVEL` (default `info`, `silent` under test). */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  return pino({
    name: options.name ?? 'switchboard',
    level,
    redact: { paths: ['headers.authorization', '*.headers', 'endpoint.headers'], censor: '[redacted]' },
  });
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
