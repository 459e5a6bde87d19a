/**
 * A reply to held side effects that says yes to some and no to others by
 * naming them: "充值确认，宽带不要了", "confirm the top-up but cancel the
 * broadband". Each part of the message names one held task (its agent's name
 * or one of its keywords) and, besides that, holds only a yes, no or cancel
 * word. Any part that does not read so (a correction, a new request, a part
 * naming no held task or two) leaves the whole message to the usual reading.
 */
import type { PendingTask } from '../../store/parked-task.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import { classifyReplyWord } from '../../understanding/index.js';

/** Where a message splits into parts that each answer one task. */
const PART_BREAK = /[,，;；。.!！?？、]+|\s+(?:but|and|while)\s+|但是|但|而/iu;
/** Words around a task's name that say nothing more ("the refill", "那个宽带的"). */
const FILLER = /\b(?:the|my|a|an|for|to|of|with|please)\b|那个|这个|那笔|这笔|的/giu;

/** Task ids said yes to and no to, or undefined when the message is not such a reply. */
export function readSelectiveReply(
  text: string,
  awaiting: readonly PendingTask[],
  snapshot: RegistrySnapshot,
): { confirm: string[]; reject: string[] } | undefined {
  const parts = text
    .normalize('NFKC')
    .toLowerCase()
    .split(PART_BREAK)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0 || awaiting.length === 0) return undefined;
  const confirm = new Set<string>();
  const reject = new Set<string>();
  for (const part of parts) {
    const named = awaiting.flatMap((task) => {
      const reference = longestReference(part, task, snapshot);
      return reference ? [{ task, reference }] : [];
    });
    // Two tasks of one agent, or a part naming two tasks: which one is meant is not said.
    if (named.length !== 1) return undefined;
    const { task, reference } = named[0]!;
    const rest = part.replace(reference, ' ').replace(FILLER, ' ').replace(/\s+/g, ' ').trim();
    const word = classifyReplyWord(rest);
    if (word === null) return undefined;
    (word === 'yes' ? confirm : reject).add(task.task_id!);
  }
  // A task said both yes and no to is not decided by this message.
  if ([...confirm].some((id) => reject.has(id))) return undefined;
  return { confirm: [...confirm], reject: [...reject] };
}

/** The longest of the task's agent names and keywords found in `part`, lower-cased. */
function longestReference(part: string, task: PendingTask, snapshot: RegistrySnapshot): string | undefined {
  const card = snapshot.byId.get(task.agent_id);
  if (!card || !task.task_id) return undefined;
  const references = [card.name, ...Object.values(card.names ?? {}), ...card.keywords]
    .map((reference) => reference.normalize('NFKC').toLowerCase().trim())
    .filter((reference) => reference.length > 0 && part.includes(reference));
  return references.sort((left, right) => right.length - left.length)[0];
}
