/**
 * An event's JSON text, made once. The turn's pipeline serialises each event
 * to store it; the stream that sends it to the client takes the same text
 * instead of serialising the event again. Kept beside the event object (a weak
 * map: it goes with the event), so an event that never had its text made
 * (one made by the HTTP layer itself) is serialised where it is sent.
 */
import type { ResponseState } from './response-state.js';

const texts = new WeakMap<ResponseState, string>();

/** Serialises `event` and remembers the text for `serialisedEvent`. The event must not change after this. */
export function serialiseEvent(event: ResponseState): string {
  let text = texts.get(event);
  if (text === undefined) texts.set(event, (text = JSON.stringify(event)));
  return text;
}

/** The JSON text of `event`: the one made when it was stored, or made now. */
export function serialisedEvent(event: ResponseState): string {
  return texts.get(event) ?? JSON.stringify(event);
}
