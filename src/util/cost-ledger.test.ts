import { afterEach, describe, expect, it } from 'vitest';
import { costLedger, countCost } from './cost-ledger.js';

describe('cost ledger counts', () => {
  afterEach(() => {
    costLedger.enabled = false;
    costLedger.counts.clear();
  });

  it('counts nothing while off', () => {
    countCost('guard passes');
    expect(costLedger.counts.size).toBe(0);
  });

  it('adds amounts by name while on', () => {
    costLedger.enabled = true;
    countCost('guard passes');
    countCost('guard chars', 12);
    countCost('guard chars', 3);
    expect(Object.fromEntries(costLedger.counts)).toEqual({ 'guard passes': 1, 'guard chars': 15 });
  });
});
