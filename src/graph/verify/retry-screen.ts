/**
 * Screens the judge's retries before anything is re-sent (docs/api.md#model-replies:
 * sub-agent output is data). The judge read every result, so a result can
 * try to steer it; what it may not achieve:
 *
 * - carry result text into a request: a revised message that repeats text
 *   of a task's result (its own included; only its declared upstream is
 *   allowed, and what the user's request or the task's description already
 *   says) is refused — a revised message rewords the request, and data
 *   reaches another agent only as the `upstream` of a dependent;
 * - bring in values: a revised message that states a date or a number that
 *   neither the user's own words, the task's inputs and description nor its
 *   declared upstream's results give
 *   is refused (the judge's wording is not evidence of a value);
 * - cause calls: when any result the judge read carries signs of instructing
 *   a model (text/injection-signals.ts), only tasks the rule check itself
 *   found insufficient may be re-sent.
 *
 * Retries name only tasks of the plan (the caller checks), so no task is
 * ever added.
 */
import { hasInjectionSignals, statesValueOutside } from '../../text/index.js';
import type { SubTask, TaskOutcome } from '../../planning/index.js';

/** Shortest run of characters that counts as copied text. */
const COPY_WINDOW = 10;

/** One retry the judge asked for. */
export interface RetryRequest {
  task_id: string;
  revised_message: string;
}

/** What the screen looks at. */
export interface RetryScreenInput {
  retries: readonly RetryRequest[];
  tasks: readonly SubTask[];
  outcomes: Readonly<Record<string, TaskOutcome>>;
  /** Task ids the rule check found insufficient. */
  ruleFlagged: ReadonlySet<string>;
  /** The user's words: the query and its rewrite. */
  userTexts: readonly string[];
  /** What the user said (this turn and earlier ones), where a value in a revised message may come from; default `userTexts`. */
  userWords?: readonly string[];
  /** Today, for relative dates; default now. */
  now?: Date;
}

/** A refused retry and why (for logs). */
export interface RefusedRetry {
  task_id: string;
  reason: 'tainted_results' | 'copied_result' | 'ungrounded_value';
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

function windowsOf(text: string): Set<string> {
  const chars = normalise(text);
  const found = new Set<string>();
  for (let start = 0; start + COPY_WINDOW <= chars.length; start += 1) found.add(chars.slice(start, start + COPY_WINDOW));
  return found;
}

/** Every string in a reply's message and output (keys and values). */
function resultTexts(outcome: TaskOutcome | undefined): string[] {
  if (!outcome) return [];
  const texts: string[] = [];
  if (outcome.message) texts.push(outcome.message);
  const visit = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        texts.push(key);
        visit(child);
      }
    }
  };
  visit(outcome.output);
  return texts;
}

/** The retries that may run, the ones refused, and whether any result the judge read carried instruction-like text. */
export function screenRetries(input: RetryScreenInput): { allowed: RetryRequest[]; refused: RefusedRetry[]; tainted: boolean } {
  const byId = new Map(input.tasks.map((task) => [task.task_id, task]));
  const tainted = input.tasks.some((task) => resultTexts(input.outcomes[task.task_id]).some(hasInjectionSignals));
  const allowed: RetryRequest[] = [];
  const refused: RefusedRetry[] = [];
  for (const retry of input.retries) {
    const task = byId.get(retry.task_id);
    if (!task) continue;
    if (tainted && !input.ruleFlagged.has(task.task_id)) {
      refused.push({ task_id: task.task_id, reason: 'tainted_results' });
      continue;
    }
    const upstream = new Set(task.dependencies);
    const allowedWindows = windowsOf([...input.userTexts, task.description, ...[...upstream].flatMap((id) => resultTexts(input.outcomes[id]))].join('\n'));
    const messageWindows = windowsOf(retry.revised_message);
    const copied = input.tasks
      .filter((other) => !upstream.has(other.task_id))
      .some((other) => resultTexts(input.outcomes[other.task_id]).some((text) => [...windowsOf(text)].some((window) => messageWindows.has(window) && !allowedWindows.has(window))));
    if (copied) refused.push({ task_id: task.task_id, reason: 'copied_result' });
    else if (statesValueOutside(retry.revised_message, [...(input.userWords ?? input.userTexts), task.description, ...Object.values(task.inputs).map(String), ...[...upstream].flatMap((id) => resultTexts(input.outcomes[id]))], input.now ?? new Date()))
      refused.push({ task_id: task.task_id, reason: 'ungrounded_value' });
    else allowed.push(retry);
  }
  return { allowed, refused, tainted };
}

