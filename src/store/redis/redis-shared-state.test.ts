import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import { openRedisSharedState } from './redis-shared-state.js';

describe('openRedisSharedState', () => {
  it('says why Redis could not be reached (the socket error), not only that the connection closed', async () => {
    // Nothing listens on port 1.
    await expect(openRedisSharedState({ url: 'redis://127.0.0.1:1', logger: silentLogger })).rejects.toThrow(/^REDIS_URL: cannot connect \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/);
  });
});
