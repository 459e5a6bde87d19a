import { describe, expect, it } from 'vitest';
import { machineTurnCapacity } from './machine-capacity.js';

const GiB = 1024 ** 3;

describe('machineTurnCapacity (default supervisor.max_concurrent_turns)', () => {
  it('is 32 per CPU while memory allows it', () => {
    expect(machineTurnCapacity({ cpus: 2, heapLimitBytes: 4 * GiB, totalMemoryBytes: 16 * GiB })).toBe(64);
  });
  it('is what half the smallest memory figure holds at 8 MiB a turn', () => {
    // Half of a 512 MiB cgroup limit: 32 turns, though 8 CPUs would allow 256.
    expect(machineTurnCapacity({ cpus: 8, heapLimitBytes: 4 * GiB, totalMemoryBytes: 64 * GiB, constrainedMemoryBytes: 0.5 * GiB })).toBe(32);
  });
  it('stays within 16..1024', () => {
    expect(machineTurnCapacity({ cpus: 1, heapLimitBytes: 64 * 1024 ** 2, totalMemoryBytes: GiB })).toBe(16);
    expect(machineTurnCapacity({ cpus: 64, heapLimitBytes: 64 * GiB, totalMemoryBytes: 256 * GiB, constrainedMemoryBytes: 0 })).toBe(1024);
  });
});
