/**
 * The in-process signal bus: the transport for a single replica (SQLite), and
 * the local fan-out every other bus uses once a message has arrived.
 */
import type { SignalBus } from './types.js';

/** A bus that delivers to subscribers of this process only. */
export interface LocalSignalBus extends SignalBus {
  /** Hands a message that came in from elsewhere to the local subscribers. */
  deliver(channel: string, message: string): void;
  /** Whether anyone here listens on the channel. */
  hasSubscribers(channel: string): boolean;
}

export function createLocalSignalBus(options: { onHandlerError?: (error: unknown) => void } = {}): LocalSignalBus {
  const handlers = new Map<string, Set<(message: string) => void>>();
  const deliver = (channel: string, message: string) => {
    for (const handler of [...(handlers.get(channel) ?? [])]) {
      try {
        handler(message);
      } catch (error) {
        options.onHandlerError?.(error);
      }
    }
  };
  return {
    deliver,
    hasSubscribers: (channel) => (handlers.get(channel)?.size ?? 0) > 0,
    async publish(channel, message) {
      // Asynchronous like a network bus, so callers never depend on re-entrancy.
      queueMicrotask(() => deliver(channel, message));
    },
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      const own = (message: string) => handler(message);
      set.add(own);
      return async () => {
        set.delete(own);
        if (set.size === 0 && handlers.get(channel) === set) handlers.delete(channel);
      };
    },
  };
}
