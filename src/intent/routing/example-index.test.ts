import { describe, expect, it } from 'vitest';
import { buildExampleIndex } from './example-index.js';

describe('example index', () => {
  it('measures how close each card\'s examples are to one another (templated high, varied low)', () => {
    const templated = buildExampleIndex([
      { examples: ['please book a train ticket', 'please book a train ticket today', 'book a train ticket please'], descriptions: [] },
      { examples: ['check my parcel status', 'check my parcel status now', 'please check my parcel status'], descriptions: [] },
    ]);
    const varied = buildExampleIndex([
      { examples: ['please book a train ticket', 'get me on the 9am rail to Leeds', 'reserve seats for two on the express'], descriptions: [] },
      { examples: ['check my parcel status', 'where is my package', 'has the courier picked it up yet'], descriptions: [] },
    ]);
    expect(templated.selfSimilarity).toBeGreaterThan(0.5);
    expect(varied.selfSimilarity).toBeLessThan(0.2);
    expect(buildExampleIndex([{ examples: ['only one'], descriptions: [] }]).selfSimilarity).toBe(0);
  });
});
