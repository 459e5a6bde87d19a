/**
 * Counts of work done per turn for the bench's cost ledger (`bench/cost-ledger.ts`):
 * guard and masking passes over text, with the characters they read. Off
 * unless a bench turns it on; off, a count is one boolean test.
 */
export const costLedger: { enabled: boolean; readonly counts: Map<string, number> } = { enabled: false, counts: new Map() };

/** Adds `amount` to the named count when the ledger is on. */
export function countCost(name: string, amount = 1): void {
  if (!costLedger.enabled) return;
  costLedger.counts.set(name, (costLedger.counts.get(name) ?? 0) + amount);
}
