/**
 * JSON logs through pino. Components receive a logger (default: this root one)
 * rather than importing a singleton, so tests can pass a silent one.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { TraceContext } from './trace-context.js';

export type { Logger };

/** What the logger needs of a personal-data masker (`src/privacy/pii-masker.ts` is one); declared here so the logger imports no room above it. */
export interface LogMasker {
  mask(text: string): string;
  maskDeep<T>(value: T): T;
}

/** Options of `createLogger`. */
export interface CreateLoggerOptions {
  level?: string;
  name?: string;
  /**
   * Masks personal data in every line (docs/api.md#personal-data): the merged object through
   * pino's `formatters.log`, the message and its arguments through
   * `hooks.logMethod`, so no call site has to remember it.
   */
  masker?: LogMasker;
  /** Where lines go (tests); default stdout. */
  destination?: DestinationStream;
  /** With it, every line written while a request is handled carries its `traceId`. */
  traceContext?: TraceContext;
}

/** Creates the process logger; level from `LOG_LEVEL` (default `info`, `silent` under test). */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  const masker = options.masker;
  const traceContext = options.traceContext;
  const settings = {
    name: options.name ?? 'switchboard',
    level,
    redact: { paths: ['headers.authorization', '*.headers', 'endpoint.headers'], censor: '[redacted]' },
    ...(masker
      ? {
          formatters: { log: (object: Record<string, unknown>) => masker.maskDeep(object) },
          hooks: {
            logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...values: unknown[]) => void) {
              method.apply(this, args.map((arg) => (typeof arg === 'string' ? masker.mask(arg) : arg)));
            },
          },
        }
      : {}),
    ...(traceContext
      ? {
          mixin() {
            const traceId = traceContext.current();
            return traceId ? { traceId } : {};
          },
        }
      : {}),
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
