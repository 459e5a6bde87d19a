/**
 * The event pipeline of one turn: every event a node writes (progress already
 * held to the stream caps where it arrived) is held while it is streamed
 * text, cleaned by the output guard (its other fields by the data guard),
 * numbered, appended to the turn's event log (for resume) and sent to the
 * client. Streamed text (agent progress per task, answer deltas per speaker)
 * goes through the guard's streams, so nothing a guard or the masking must see
 * whole is ever split between two events (`text/scrub-stream.ts`).
 */
import type { DeltaStream, MessageStream, TextScrubber } from '../text/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import type { Language } from '../i18n/index.js';
import { createOutputGuard, createSystemPromptLeakCheck, type NodeEvent, type OutputGuard } from '../graph/index.js';
import { createSecretGuard, scrubDeep } from '../privacy/index.js';
import { isAnswerDelta, isCompleteFinal, serialiseEvent, stageRow, type ResponseState } from '../events/index.js';
import type { TurnEventLog } from './turn-event-log.js';

/** What one turn's pipeline writes to. */
export interface EventPipelineOptions {
  sessionId: string;
  turnId: string;
  guard: OutputGuard;
  /** Removes header values and addresses from every field of an event besides its content. */
  scrubData: (text: string) => string;
  eventLog: TurnEventLog;
  /** Once aborted, events are still numbered and stored but no longer sent. */
  clientSignal: AbortSignal;
  onEvent: (event: ResponseState) => void;
  /** State added to the complete `final` and to `done`: usage, budget stops, dropped progress. */
  closingState: () => Record<string, unknown>;
  /** When the turn started (epoch ms): each event's offset from it is kept for the turn record. */
  startedAt: number;
}

/** One turn's pipeline, and what it saw go through. */
export interface EventPipeline {
  /** Takes one node event. */
  send(event: NodeEvent, type?: ResponseState['type']): void;
  /** Every event sent so far, numbered. */
  readonly events: ResponseState[];
  /** When each of `events` went through, in ms from the turn's start (index-aligned). */
  readonly offsets: number[];
  /** The answer so far: the last complete `final`, with an escalation's text after it. */
  finalAnswer(): string;
  /** Whether the verify step found the results insufficient (the turn counts as unresolved). */
  unresolved(): boolean;
  /** From now on events wait for `releaseToClient` (the turn's end: the session is freed before the client sees `done`). */
  holdForClient(): void;
  /** Sends the events held since `holdForClient` (unless the client left) and stops holding. */
  releaseToClient(): void;
}

/** The held stream of one sub-task's progress. */
function agentStreamKey(event: NodeEvent): string {
  return `agent:${String(event.state?.task_id ?? event.agent_id)}`;
}

/** Which held stream a streamed event belongs to (the stage table's `held`); undefined for every other event. */
function heldStreamKey(event: NodeEvent): string | undefined {
  const held = stageRow(event.stage)?.held;
  if (held === 'progress') return agentStreamKey(event);
  if (held === 'deltas' && isAnswerDelta(event)) return `final:${event.agent_id}`;
  return undefined;
}

/** One held stream of a turn: an answer's deltas, or one sub-task's progress messages. */
type HeldText = { kind: 'deltas'; stream: DeltaStream; first: NodeEvent } | { kind: 'messages'; stream: MessageStream<NodeEvent> };

/** One output guard per snapshot, built on first use and dropped with the snapshot. */
export function createOutputGuards(): (snapshot: RegistrySnapshot, language?: Language) => OutputGuard {
  const guards = new WeakMap<RegistrySnapshot, Map<Language | undefined, OutputGuard>>();
  const leakCheck = createSystemPromptLeakCheck();
  return (snapshot, language) => {
    let byLanguage = guards.get(snapshot);
    if (!byLanguage) {
      byLanguage = new Map();
      guards.set(snapshot, byLanguage);
    }
    let guard = byLanguage.get(language);
    if (!guard) {
      // Ids, endpoint addresses, header values and system-prompt text never reach the user; an id shows as the
      // agent's name in the turn's language.
      guard = createOutputGuard(snapshot, { inventedIds: false, leakCheck, ...(language ? { language } : {}) });
      byLanguage.set(language, guard);
    }
    return guard;
  };
}

/** Short texts whose data-guard result is remembered: the keys and words every turn's events repeat. */
const REMEMBERED_TEXT_CHARS = 64;
const REMEMBERED_TEXTS = 4096;

/**
 * One data guard per snapshot (header values and addresses out of every field besides the content). Its
 * `scrub` is a function of the snapshot and the text alone, so the result for a short text is remembered
 * (the events' state repeats the same keys and words turn after turn); the memory is dropped when full.
 */
export function createDataGuards(): (snapshot: RegistrySnapshot) => TextScrubber {
  const dataGuards = new WeakMap<RegistrySnapshot, TextScrubber>();
  return (snapshot) => {
    let scrubber = dataGuards.get(snapshot);
    if (!scrubber) {
      const guard = createSecretGuard(snapshot);
      const remembered = new Map<string, string>();
      const scrub = (text: string): string => {
        if (typeof text !== 'string' || text.length > REMEMBERED_TEXT_CHARS) return guard.scrub(text);
        let clean = remembered.get(text);
        if (clean === undefined) {
          if (remembered.size >= REMEMBERED_TEXTS) remembered.clear();
          remembered.set(text, (clean = guard.scrub(text)));
        }
        return clean;
      };
      dataGuards.set(snapshot, (scrubber = { ...guard, scrub }));
    }
    return scrubber;
  };
}

/** Starts the pipeline of one turn. */
export function createEventPipeline(options: EventPipelineOptions): EventPipeline {
  const { guard, scrubData, eventLog, clientSignal, onEvent } = options;
  const events: ResponseState[] = [];
  const offsets: number[] = [];
  let finalAnswer = '';
  // The verify step found the results insufficient: a turn that ran to its end still counts as unresolved (docs/api.md#model-replies).
  let unresolved = false;
  // Events of the turn's end wait here for the session to be free before the client sees them.
  let heldForClient: ResponseState[] | undefined;

  // Agents' texts and the answer are read in order as one: no secret may be spelt across two of them.
  // A piece whose end may begin a secret waits for the next piece (events outside the composition pass it).
  const composition = guard.composition<{ event: NodeEvent; type: ResponseState['type'] }>();
  const composed = (event: NodeEvent, type: ResponseState['type'], content: string) => {
    if (content === '') return undefined;
    if (event.stage === 'agent_stream' || event.stage === 'agent_done') return composition.agentText(content, { event, type });
    if (isAnswerDelta(event)) return composition.answerPiece(content, { event, type });
    if (isCompleteFinal(event)) return composition.completeAnswer(content, { event, type });
    return undefined;
  };

  const deliver = (event: NodeEvent, type: ResponseState['type'], written: string): void => {
    const shown = composed(event, type, written);
    if (shown === undefined) {
      // The turn's end (and an escalation, which only the end follows) releases a held piece first.
      if (type !== 'content' || event.stage === 'done' || event.stage === 'escalate') for (const piece of composition.flush()) emit(piece.tag.event, piece.tag.type, piece.text);
      emit(event, type, written);
    } else {
      for (const piece of shown) emit(piece.tag.event, piece.tag.type, piece.text);
    }
  };

  const emit = (event: NodeEvent, type: ResponseState['type'], content: string): void => {
    const completeFinal = isCompleteFinal(event);
    const complete = completeFinal || event.stage === 'done';
    const state = complete ? { ...event.state, ...options.closingState() } : event.state;
    const seq = events.length + 1;
    const response: ResponseState = {
      type,
      content,
      agent_id: event.agent_id,
      is_thinking: event.is_thinking,
      session_id: options.sessionId,
      metadata: {
        stage: event.stage,
        seq,
        turn_id: options.turnId,
        ...(event.semantic_info ? { semantic_info: scrubDeep(event.semantic_info, scrubData) } : {}),
        ...(event.confirmation ? { confirmation: scrubDeep(event.confirmation, scrubData) } : {}),
        ...(event.clarification ? { clarification: scrubDeep(event.clarification, scrubData) } : {}),
        ...(state ? { state: scrubDeep(state, scrubData) } : {}),
      },
    };
    if (completeFinal && (event.state?.verification as { sufficient?: unknown } | undefined)?.sufficient === false) unresolved = true;
    if (completeFinal || event.stage === 'escalate') finalAnswer = finalAnswer && event.stage === 'escalate' ? `${finalAnswer}\n\n${response.content}` : response.content;
    events.push(response);
    offsets.push(Date.now() - options.startedAt);
    // After the whole answer only `escalate` and `done` can follow: they are stored with the turn's end.
    if (completeFinal) eventLog.holdUntilEnd();
    // Serialised once: the stored text is the text the client's stream sends.
    eventLog.append({ seq, data: serialiseEvent(response) });
    if (heldForClient) heldForClient.push(response);
    else if (!clientSignal.aborted) onEvent(response);
  };

  const held = new Map<string, HeldText>();
  const flushHeld = (which: (key: string) => boolean): void => {
    for (const [key, entry] of held) {
      if (!which(key)) continue;
      held.delete(key);
      if (entry.kind === 'deltas') {
        const rest = entry.stream.flush();
        if (rest !== '') deliver(entry.first, 'content', rest);
      } else {
        for (const shown of entry.stream.flush()) deliver(shown.tag, 'content', shown.text);
      }
    }
  };
  const send = (event: NodeEvent, type: ResponseState['type'] = 'content'): void => {
    // Progress over the turn's caps was dropped where it arrived (`context.admitProgress`), before it was guarded.
    const key = heldStreamKey(event);
    if (key !== undefined) {
      let entry = held.get(key);
      if (!entry) {
        // Progress arrives as whole messages a client shows one at a time; deltas are appended.
        entry = stageRow(event.stage)?.held === 'progress' ? { kind: 'messages', stream: guard.messages<NodeEvent>() } : { kind: 'deltas', stream: guard.stream(), first: event };
        held.set(key, entry);
      }
      if (entry.kind === 'deltas') {
        const content = entry.stream.push(event.content);
        if (content !== '') deliver(event, type, content);
      } else {
        for (const shown of entry.stream.push(event.content, event)) deliver(shown.tag, type, shown.text);
      }
      return;
    }
    // What the stage releases of the held text first (the stage table's `held`).
    const releases = stageRow(event.stage)?.held;
    if (releases === 'task') flushHeld((name) => name === agentStreamKey(event));
    else if (releases !== 'keeps') flushHeld(() => true);
    deliver(event, type, guard.clean(event.content));
  };

  const holdForClient = (): void => {
    heldForClient ??= [];
  };
  const releaseToClient = (): void => {
    const held = heldForClient ?? [];
    heldForClient = undefined;
    for (const response of held) if (!clientSignal.aborted) onEvent(response);
  };
  return { send, events, offsets, finalAnswer: () => finalAnswer, unresolved: () => unresolved, holdForClient, releaseToClient };
}
