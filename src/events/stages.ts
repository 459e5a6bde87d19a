/**
 * The one table of a turn's stages (docs/api.md#events): for each `metadata.stage` an event can
 * carry, the section of the turn it opens or closes, whether its text is still thinking, who
 * speaks in `agent_id`, what the event pipeline holds of it, and whether it is an AG-UI step edge
 * and a trace span edge. Every consumer reads its stage facts here; adding a stage is one row
 * (and its name in `schemas/response-state.schema.json`, which a test holds to this table).
 */

/** A part of a turn that one stage opens and another closes. */
export type Section = 'intent' | 'plan' | 'agent' | 'verify' | 'summarize';

/** Who speaks in an event's `agent_id`: the supervisor, the summariser, or the sub-agent of the task. */
export type Speaker = 'supervisor' | 'summarize' | 'sub-agent';

/**
 * What the event pipeline holds of a stage before the client sees it:
 * `progress` — a sub-task's progress messages, held per task until no secret can still be split;
 * `deltas` — the streamed pieces of an answer (`state.delta: true`), held per speaker (the
 *   complete answer releases everything held first);
 * `keeps` — the stage leaves held text where it is (a task starting beside others);
 * `task` — the stage releases the held progress of its own task;
 * `all` — the stage releases everything held first.
 */
export type Held = 'progress' | 'deltas' | 'keeps' | 'task' | 'all';

/** The facts of one stage. */
export interface StageRow {
  /** The section this stage opens or closes, and which edge it is. */
  section?: { name: Section; edge: 'open' | 'close' };
  /** Whether the edge is an AG-UI STEP_STARTED / STEP_FINISHED (the step is named after the section; a sub-agent's step is `agent:<agent_id>:<task_id>`). */
  step: boolean;
  /** Whether the edge starts or ends the trace span `switchboard.stage.<section>`. */
  span: boolean;
  /** The event's `is_thinking`: false only for what the user reads as the answer. */
  isThinking: boolean;
  /** Who may speak in `agent_id`. */
  speakers: readonly Speaker[];
  held: Held;
}

/** Every stage, in the order a turn usually sends them. */
export const STAGES = {
  intent_start: { section: { name: 'intent', edge: 'open' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  intent_done: { section: { name: 'intent', edge: 'close' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  plan_start: { section: { name: 'plan', edge: 'open' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  plan_done: { section: { name: 'plan', edge: 'close' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  agent_start: { section: { name: 'agent', edge: 'open' }, step: true, span: false, isThinking: true, speakers: ['sub-agent'], held: 'keeps' },
  agent_stream: { step: false, span: false, isThinking: true, speakers: ['sub-agent'], held: 'progress' },
  agent_done: { section: { name: 'agent', edge: 'close' }, step: true, span: false, isThinking: true, speakers: ['sub-agent'], held: 'task' },
  agent_failed: { section: { name: 'agent', edge: 'close' }, step: true, span: false, isThinking: true, speakers: ['sub-agent'], held: 'task' },
  verify_start: { section: { name: 'verify', edge: 'open' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  verify_done: { section: { name: 'verify', edge: 'close' }, step: true, span: true, isThinking: true, speakers: ['supervisor'], held: 'all' },
  summarize_start: { section: { name: 'summarize', edge: 'open' }, step: true, span: true, isThinking: true, speakers: ['summarize'], held: 'all' },
  // The complete answer closes the summary's span; AG-UI closes its open steps itself before the answer's text message.
  final: { section: { name: 'summarize', edge: 'close' }, step: false, span: true, isThinking: false, speakers: ['supervisor', 'summarize'], held: 'deltas' },
  escalate: { step: false, span: false, isThinking: false, speakers: ['supervisor'], held: 'all' },
  done: { step: false, span: false, isThinking: false, speakers: ['supervisor'], held: 'all' },
} as const satisfies Record<string, StageRow>;

/** The `metadata.stage` of an event. */
export type Stage = keyof typeof STAGES;

/** Every stage name, in the table's order. */
export const STAGE_NAMES = Object.keys(STAGES) as Stage[];

/** The row of a stage (undefined for a name outside the table, e.g. read back from an older stream). */
export function stageRow(stage: string): StageRow | undefined {
  return Object.hasOwn(STAGES, stage) ? STAGES[stage as Stage] : undefined;
}
