/**
 * Keeps the chat responses that are still open so the server can end them on
 * shutdown and wait for them, instead of cutting them mid-event.
 */

/** One open chat response. */
export interface TrackedStream {
  /** Asks the response to finish (abort the turn, end the stream); settles when it did. */
  shutdown(): Promise<void>;
}

/** The set of open chat responses of one app. */
export interface StreamTracker {
  /** Adds a stream; returns the function that removes it. */
  add(stream: TrackedStream): () => void;
  readonly size: number;
  /** Shuts every open stream down and waits for all of them. */
  shutdownAll(): Promise<void>;
}

/** Creates an empty tracker. */
export function createStreamTracker(): StreamTracker {
  const streams = new Set<TrackedStream>();
  return {
    add(stream) {
      streams.add(stream);
      return () => {
        streams.delete(stream);
      };
    },
    get size() {
      return streams.size;
    },
    async shutdownAll() {
      await Promise.allSettled([...streams].map((stream) => stream.shutdown()));
    },
  };
}
