/**
 * Reading the plan a model drafted. The LLM recogniser asks for the draft in
 * its one model call (intent, rewrite and plan together) but does not read it:
 * it passes the reply's `task_plan` on as data (`DraftSource`), with the
 * agents the turn later set aside. Planning owns the draft's shape, so its
 * check is here: `check` tells the recogniser whether the reply holds a usable
 * draft, which agents it names (they join the intents) and gives it back with
 * the descriptions the recogniser refuses blanked; `read` turns the source
 * into the typed `DraftPlanEnvelope` the LLM planner checks against the
 * registry.
 */
import { Ajv } from 'ajv';
import { TASK_PLAN_DRAFT_SCHEMA, type DraftPlanEnvelope, type DraftTaskPlan } from './draft-schema.js';

/** The plan part of a model reply as recognition passes it on: the user's words of the turn and the reply's `task_plan`, unchecked. */
export interface DraftSource {
  /** The user's own words of this turn (the planner checks key values against them). */
  readonly query: string;
  /** The reply's `task_plan`, as the model wrote it. */
  readonly task_plan: unknown;
  /** When set, only drafted tasks assigned (as written) to one of these agents are kept: the intents the turn kept. */
  readonly onlyAgents?: readonly string[];
  /** Drafted tasks assigned (as written) to one of these agents are dropped: agents the turn set aside. */
  readonly withoutAgents?: readonly string[];
}

/** Checks and reads drafts (see the file header); one per recogniser or planner. */
export interface DraftReader {
  /**
   * A usable draft's agents (as written) and a copy of it whose task descriptions `refuses` holds are blank
   * (a description that repeats the prompt goes to no sub-agent); `problem` when `taskPlan` is not a draft.
   */
  check(taskPlan: unknown, refuses?: (description: string) => boolean): { agents: string[]; taskPlan: unknown } | { problem: unknown };
  /** The typed draft of `source`, with the set-aside agents' tasks removed; undefined when it is not a usable draft. */
  read(source: DraftSource | undefined): DraftPlanEnvelope | undefined;
}

/** Creates a draft reader (the schema is compiled once per reader). */
export function createDraftReader(): DraftReader {
  const validate = new Ajv({ allErrors: true, strict: false }).compile<DraftTaskPlan>(TASK_PLAN_DRAFT_SCHEMA);
  return {
    check(taskPlan, refuses) {
      if (!validate(taskPlan)) return { problem: validate.errors?.slice(0, 3) };
      const copy = structuredClone(taskPlan);
      for (const task of copy.sub_tasks) if (typeof task.description === 'string' && refuses?.(task.description)) task.description = '';
      return { agents: taskPlan.sub_tasks.map((task) => task.assigned_agent), taskPlan: copy };
    },
    read(source) {
      if (source === undefined || !validate(source.task_plan)) return undefined;
      const only = source.onlyAgents ? new Set(source.onlyAgents) : undefined;
      const without = new Set(source.withoutAgents ?? []);
      const plan = source.task_plan;
      if (only === undefined && without.size === 0) return { query: source.query, task_plan: plan };
      const sub_tasks = plan.sub_tasks.filter((task) => (only === undefined || only.has(task.assigned_agent)) && !without.has(task.assigned_agent));
      return { query: source.query, task_plan: { ...plan, sub_tasks } };
    },
  };
}
