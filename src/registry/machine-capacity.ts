/**
 * The default of `supervisor.max_concurrent_turns`: how many turns this process
 * can carry at once, read from the machine (docs/decisions/0044-admission-and-buffers.md).
 *
 *   min(32 × CPUs available, memory for turns ÷ 8 MiB), kept within 16..1024
 *
 * where "memory for turns" is half of the smallest of the V8 heap limit, the
 * cgroup limit (when the process runs in a container) and the machine's
 * memory. A turn mostly waits on sub-agents and the model, so CPU allows many
 * at once; 8 MiB per turn is a pessimistic share of heap (graph state, events,
 * buffered replies) that keeps a saturated process well clear of the heap
 * limit.
 */
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

/** Turns per available CPU. */
export const TURNS_PER_CPU = 32;
/** Heap one turn may take, at the worst. */
export const BYTES_PER_TURN = 8 * 1024 * 1024;
const FLOOR = 16;
const CEILING = 1024;

/** What the formula reads; tests hand in figures. */
export interface MachineFigures {
  cpus: number;
  heapLimitBytes: number;
  totalMemoryBytes: number;
  /** The cgroup limit; 0 or undefined when there is none. */
  constrainedMemoryBytes?: number;
}

/** This machine's figures. */
export function readMachine(): MachineFigures {
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return { cpus: availableParallelism(), heapLimitBytes: getHeapStatistics().heap_size_limit, totalMemoryBytes: totalmem(), constrainedMemoryBytes: constrained };
}

/** The default `max_concurrent_turns` for the given (default: this) machine. */
export function machineTurnCapacity(machine: MachineFigures = readMachine()): number {
  const constrained = machine.constrainedMemoryBytes && machine.constrainedMemoryBytes > 0 ? machine.constrainedMemoryBytes : Infinity;
  const memoryForTurns = Math.min(machine.heapLimitBytes, machine.totalMemoryBytes, constrained) / 2;
  const byCpu = TURNS_PER_CPU * Math.max(1, machine.cpus);
  const byMemory = Math.floor(memoryForTurns / BYTES_PER_TURN);
  return Math.max(FLOOR, Math.min(CEILING, byCpu, byMemory));
}
