/**
 * How a checkpointer reads a checkpoint back. LangGraph's serializer parses
 * the JSON and then rebuilds every object and array of it with an async
 * function per value (a promise each: hundreds per turn for a session's
 * memory), looking for the few records it revives (`lc` objects: Map, Set,
 * Error, undefined, serialised LangChain objects). A checkpoint that holds
 * none of them (no object with an `lc` or `__proto__` key, which is what the
 * supervisor's state always is) reads here as `JSON.parse` gives it: the
 * same keys, values and order as the reviver's copy. Any other goes through
 * the checkpointer's own reader unchanged, and writing is always its own.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';

type Serializer = BaseCheckpointSaver['serde'];

/** `saver` reading plain JSON checkpoints without LangGraph's reviver (see above); returns it. */
export function readPlainCheckpoints<Saver extends BaseCheckpointSaver>(saver: Saver): Saver {
  const own: Serializer = saver.serde;
  saver.serde = {
    dumpsTyped: (value) => own.dumpsTyped(value),
    loadsTyped: async (type, data) => {
      if (type !== 'json') return own.loadsTyped(type, data);
      const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
      const value: unknown = JSON.parse(text);
      return holdsRecord(value) ? own.loadsTyped(type, text) : value;
    },
  };
  return saver;
}

/** True when an object in `value` has a key LangGraph's reviver reads (`lc`), or `__proto__` (which its copy would make a prototype). */
function holdsRecord(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (const child of item) if (child !== null && typeof child === 'object') stack.push(child);
      continue;
    }
    if (Object.hasOwn(item, 'lc') || Object.hasOwn(item, '__proto__')) return true;
    for (const key in item) {
      const child = (item as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return false;
}
