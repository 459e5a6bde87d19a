/**
 * A reply to held side effects that says yes to some and no to others by
 * naming them: "充值确认，宽带不要了", "confirm the top-up but cancel the
 * broadband". Each part of the message names one held task (one of the words
 * it is known by: its agent's names and keywords) and, besides that, holds
 * only a yes, no or cancel word. Any part that does not read so (a
 * correction, a new request, a part naming no held task or two) leaves the
 * whole message to the usual reading.
 */
import { classifyReplyWord } from './reply-word.js';

/** A held task and the words that name it (registry text: its agent's names and keywords). */
export interface HeldTaskNames {
  readonly taskId: string;
  readonly names: readonly string[];
}

/** Where a message splits into parts that each answer one task. */
const PART_BREAK = /[,，;；。.!！?？、]+|\s+(?:but|and|while)\s+|但是|但|而/iu;
/** Words around a task's name that say nothing more ("the refill", "那个宽带的"). */
const FILLER = /\b(?:the|my|a|an|for|to|of|with|please)\b|那个|这个|那笔|这笔|的/giu;

/**
 * Task ids said yes to and no to, or undefined when the message (`normalizedQuery`, the turn's reading of it)
 * is not such a reply.
 */
export function readSelectiveReply(normalizedQuery: string, held: readonly HeldTaskNames[]): { confirm: string[]; reject: string[] } | undefined {
  const parts = normalizedQuery
    .toLowerCase()
    .split(PART_BREAK)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0 || held.length === 0) return undefined;
  const named = held.map((task) => ({ taskId: task.taskId, names: task.names.map((name) => name.normalize('NFKC').toLowerCase().trim()).filter((name) => name.length > 0) }));
  const confirm = new Set<string>();
  const reject = new Set<string>();
  for (const part of parts) {
    const found = named.flatMap((task) => {
      const reference = task.names.filter((name) => part.includes(name)).sort((left, right) => right.length - left.length)[0];
      return reference ? [{ taskId: task.taskId, reference }] : [];
    });
    // Two tasks of one agent, or a part naming two tasks: which one is meant is not said.
    if (found.length !== 1) return undefined;
    const { taskId, reference } = found[0]!;
    const rest = part.replace(reference, ' ').replace(FILLER, ' ').replace(/\s+/g, ' ').trim();
    const word = classifyReplyWord(rest);
    if (word === null) return undefined;
    (word === 'yes' ? confirm : reject).add(taskId);
  }
  // A task said both yes and no to is not decided by this message.
  if ([...confirm].some((id) => reject.has(id))) return undefined;
  return { confirm: [...confirm], reject: [...reject] };
}
