/** Word meaning from the optional embeddings endpoint: the client from the environment, the semantic index, the turn's one reading of meaning. Other rooms import these names from this file only. */
export { cosine } from './embeddings-client.js';
export { createEmbeddingsFromEnv } from './from-env.js';
export type { SemanticIndex, SemanticScores } from './semantic-index.js';
export { createTurnMeaning, type TurnMeaning } from './turn-meaning.js';
