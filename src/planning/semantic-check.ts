/**
 * Semantic check before dispatch. Why before routing: sending a sub-task that
 * lacks a required key only costs a round trip that ends in "input required",
 * so a task missing keys is parked and the user is asked for exactly those keys
 * (with their descriptions and widget ids) while every other task still runs.
 */
import { isCnMobile, isEmailAddress } from '../text/index.js';
import type { ExtractSpec, RegistrySnapshot, SemanticKeySpec } from '../registry/index.js';
import type { InvalidKey, SubTask, TaskPlan } from './plan-types.js';
import { dependentsOf } from './dag.js';
import { keyRequest, type KeyRequest } from './key-request.js';

export interface SemanticCheckResult {
  plan: TaskPlan;
  semanticInfo: KeyRequest[];
  /** task_id → reason it is parked or failed before dispatch (internal, for logs and state). */
  heldBack: Record<string, string>;
  /** task_id → the values the user gave that were refused (extraction's and the checks'), so the answer can name them. */
  invalidKeys: Record<string, InvalidKey[]>;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Why `value` is not acceptable for `spec` (`'empty'` when absent or blank), or null when it is. */
export function checkKeyValue(extract: ExtractSpec, value: unknown): string | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return 'empty';
  // Key values are scalars: `Number(true)` or `String(['北京'])` must not pass for one.
  if (typeof value !== 'string' && typeof value !== 'number') return 'not text or a number';
  switch (extract.type) {
    case 'enum': {
      const text = String(value).toLowerCase();
      return extract.values.some((allowed) => allowed.toLowerCase() === text) ? null : `not one of ${extract.values.join(', ')}`;
    }
    case 'date': {
      const match = DATE.exec(String(value));
      if (!match) return 'not a date (YYYY-MM-DD)';
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      const date = new Date(Date.UTC(year, month - 1, day));
      return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? null : 'not a calendar date';
    }
    case 'number': {
      const number = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(number)) return 'not a number';
      if (extract.min !== undefined && number < extract.min) return `below ${extract.min}`;
      if (extract.max !== undefined && number > extract.max) return `above ${extract.max}`;
      return null;
    }
    case 'phone':
      return isCnMobile(String(value)) ? null : 'not a mobile number';
    case 'email':
      return isEmailAddress(String(value)) ? null : 'not an email address';
    default:
      return null;
  }
}

/**
 * Marks tasks that cannot be dispatched as `parked` (missing or invalid keys,
 * or waiting on a parked task) and returns the `semantic_info` for the user
 * (key descriptions in `language` when the registry gives them per language).
 */
export function checkPlanSemantics(
  plan: TaskPlan,
  invalidKeys: Readonly<Record<string, readonly InvalidKey[]>>,
  snapshot: RegistrySnapshot,
  language?: string,
): SemanticCheckResult {
  const semanticInfo: KeyRequest[] = [];
  const heldBack: Record<string, string> = {};
  const refused: Record<string, InvalidKey[]> = {};
  const tasks: SubTask[] = plan.sub_tasks.map((task) => ({ ...task, inputs: { ...task.inputs }, dependencies: [...task.dependencies] }));

  for (const task of tasks) {
    const card = snapshot.byId.get(task.assigned_agent);
    if (!card) continue;
    const missing: SemanticKeySpec[] = [];
    const invalid: SemanticKeySpec[] = [];
    const known = invalidKeys[task.task_id] ?? [];
    const taskRefused: InvalidKey[] = [];
    for (const spec of card.requiredKeys) {
      const given = known.find((item) => item.key === spec.key);
      if (given) {
        invalid.push(spec);
        taskRefused.push({ ...given });
        continue;
      }
      const value = task.inputs[spec.key];
      const problem = checkKeyValue(spec.extract, value);
      if (problem === null) continue;
      (problem === 'empty' ? missing : invalid).push(spec);
      if (problem !== 'empty' && (typeof value === 'string' || typeof value === 'number')) taskRefused.push({ key: spec.key, raw: String(value), reason: problem });
      delete task.inputs[spec.key];
    }
    if (taskRefused.length > 0) refused[task.task_id] = taskRefused;
    if (missing.length === 0 && invalid.length === 0 && card.validateInput && !card.validateInput(task.inputs)) {
      for (const error of card.validateInput.errors ?? []) {
        const key = error.instancePath.split('/')[1] ?? (error.params as { missingProperty?: string }).missingProperty;
        const spec = card.requiredKeys.find((candidate) => candidate.key === key);
        if (spec && !invalid.includes(spec)) invalid.push(spec);
      }
      // Like a value that fails its key check: not sent, not remembered as known.
      for (const spec of invalid) delete task.inputs[spec.key];
      if (invalid.length === 0) {
        heldBack[task.task_id] = `inputs do not satisfy the input schema: ${(card.validateInput.errors ?? [])
          .map((error) => `${error.instancePath || '/'} ${error.message}`)
          .join('; ')}`;
      }
    }
    if (missing.length > 0) semanticInfo.push(keyRequest(card, missing.map((spec) => spec.key), language));
    if (invalid.length > 0) semanticInfo.push(keyRequest(card, invalid.map((spec) => spec.key), language, { type: 'invalid' }));
    if (missing.length > 0 || invalid.length > 0) {
      task.status = 'parked';
      heldBack[task.task_id] = [
        missing.length ? `missing ${missing.map((spec) => spec.key).join(', ')}` : '',
        invalid.length ? `invalid ${invalid.map((spec) => spec.key).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    } else if (heldBack[task.task_id]) {
      task.status = 'failed';
    }
  }

  // Dependents of a parked task wait with it; dependents of a failed one are skipped by the scheduler.
  const parked = tasks.filter((task) => task.status === 'parked').map((task) => task.task_id);
  for (const id of dependentsOf(tasks, parked)) {
    const task = tasks.find((candidate) => candidate.task_id === id)!;
    if (task.status !== 'pending') continue;
    task.status = 'parked';
    heldBack[id] = 'waits for a task that is held back';
  }

  const missingKeys = [...new Set(semanticInfo.flatMap((info) => info.keys))];
  return { plan: { ...plan, sub_tasks: tasks, missing_semantic_keys: missingKeys }, semanticInfo, heldBack, invalidKeys: refused };
}
