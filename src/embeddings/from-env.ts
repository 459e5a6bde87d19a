/**
 * The embeddings path from the environment (docs/api.md#environment): `EMBEDDINGS_BASE_URL`
 * and `EMBEDDINGS_MODEL` turn it on, `EMBEDDINGS_API_KEY` is sent when set.
 * Unset: `undefined`, and routing is the offline recogniser's alone.
 */
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { createEmbeddingsClient, type EmbeddingsClient } from './embeddings-client.js';
import { createSemanticIndex, type SemanticIndex } from './semantic-index.js';

/** The client and the index built on it. */
export interface EmbeddingsSetup {
  client: EmbeddingsClient;
  index: SemanticIndex;
}

/** Builds the embeddings path when both variables are set; metrics are recorded when given. */
export function createEmbeddingsFromEnv(env: Readonly<Record<string, string | undefined>>, logger: Logger, metrics?: Metrics): EmbeddingsSetup | undefined {
  const baseUrl = env.EMBEDDINGS_BASE_URL?.trim();
  const model = env.EMBEDDINGS_MODEL?.trim();
  if (!baseUrl || !model) return undefined;
  const client = createEmbeddingsClient({
    baseUrl,
    model,
    apiKey: env.EMBEDDINGS_API_KEY,
    logger,
    observer: metrics
      ? {
          onCall: (outcome, latencyMs) => {
            metrics.embeddingsCalls.inc({ outcome });
            metrics.embeddingsDuration.observe(latencyMs / 1000);
          },
          onCacheLookup: (where) => (where === 'miss' ? metrics.cacheMisses.inc({ cache: 'embeddings' }) : metrics.cacheHits.inc({ cache: 'embeddings' })),
          onFallback: (reason) => metrics.embeddingsFallbacks.inc({ reason }),
        }
      : undefined,
  });
  // A turn read before the cards have vectors stays lexical too, and is counted with the endpoint's fallbacks.
  const onFallback = metrics ? (reason: string) => metrics.embeddingsFallbacks.inc({ reason }) : undefined;
  return { client, index: createSemanticIndex({ client, ...(onFallback ? { onFallback } : {}) }) };
}
