/**
 * Parked tasks at rest (docs/api.md#personal-data). A parked task keeps the real values of
 * its agent's declared keys until it runs, but the checkpoint must not hold
 * them readable: on the way in, its description, confirmation summary and
 * every input holding personal data are masked, and the real ones are sealed
 * (`data-sealer.ts`) into one field; on the way out they are opened again.
 * Inputs without personal data (a city, a date) stay plain, as the planners
 * read them.
 *
 * A seal that does not open (sealed under another key, see the sealer)
 * leaves the task as the user must see it: the sealed keys become missing
 * again, so they are asked for instead of sending a masked value to the agent
 * as if it were real, and a task that awaited confirmation no longer does.
 * The sealed values go when the task leaves `pending` (it ran, was dropped or
 * expired) and the checkpoint that held it is replaced.
 */
import type { PendingTask } from '../store/index.js';
import type { DataSealer } from './data-sealer.js';
import type { PiiMasker } from './pii-masker.js';

/** A parked task as stored: personal values masked, the real ones in `sealed`. */
export interface StoredPendingTask extends PendingTask {
  sealed?: {
    /** Input keys whose real values are sealed. */
    keys: string[];
    data: string;
  };
}

interface SealedValues {
  description: string;
  inputs: Record<string, unknown>;
  summary?: string;
}

const same = (left: unknown, right: unknown): boolean => JSON.stringify(left) === JSON.stringify(right);

/** The task as it may be stored: nothing personal readable. */
export function sealPendingTask(task: PendingTask, masker: PiiMasker, sealer: DataSealer): StoredPendingTask {
  const plainInputs: Record<string, unknown> = {};
  const personalInputs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(task.inputs)) {
    if (same(masker.maskDeep(value), value)) plainInputs[key] = value;
    else personalInputs[key] = value;
  }
  const description = masker.mask(task.description);
  const summary = task.confirmation ? masker.mask(task.confirmation.summary) : undefined;
  const keys = Object.keys(personalInputs);
  const untouched = keys.length === 0 && description === task.description && summary === task.confirmation?.summary;
  // Ids, key names and the parking time hold no personal data and stay as they are.
  const stored: StoredPendingTask = {
    ...task,
    description,
    inputs: plainInputs,
    ...(task.confirmation ? { confirmation: { ...task.confirmation, summary: summary! } } : {}),
    // Upstream outputs are stored masked, not sealed: an agent receives personal values only as its own keys.
    ...(task.upstream ? { upstream: masker.maskDeep(task.upstream) } : {}),
  };
  if (untouched) return stored;
  const sealed: SealedValues = { description: task.description, inputs: personalInputs, ...(task.confirmation ? { summary: task.confirmation.summary } : {}) };
  return { ...stored, sealed: { keys, data: sealer.seal(sealed) } };
}

/** The task as stored, with its sealed values back (or asked for again when they cannot be opened). */
export function openPendingTask(stored: StoredPendingTask, sealer: DataSealer): PendingTask {
  const { sealed, ...task } = stored;
  if (!sealed) return task;
  const values = readSealed(sealer.open(sealed.data));
  if (!values) {
    const missing = [...new Set([...task.missing_keys, ...sealed.keys])];
    const { confirmation: _dropped, ...rest } = task;
    return { ...rest, missing_keys: missing };
  }
  return {
    ...task,
    description: values.description,
    inputs: { ...task.inputs, ...values.inputs },
    ...(task.confirmation && values.summary !== undefined ? { confirmation: { ...task.confirmation, summary: values.summary } } : {}),
  };
}

function readSealed(value: unknown): SealedValues | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const candidate = value as Partial<SealedValues>;
  if (typeof candidate.description !== 'string' || candidate.inputs === null || typeof candidate.inputs !== 'object') return undefined;
  if (candidate.summary !== undefined && typeof candidate.summary !== 'string') return undefined;
  return candidate as SealedValues;
}
