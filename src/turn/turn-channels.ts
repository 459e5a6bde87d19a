/**
 * Names of the signal-bus channels turns use across replicas.
 */
import { sessionLeaseKey } from './session-lease.js';

/** Where a session's running turn listens for cancel requests (the message is the turn id). */
export function cancelChannel(userId: string, sessionId: string): string {
  return `cancel:${sessionLeaseKey(userId, sessionId)}`;
}

/** Announces that a turn has new stored events (the message is the last stored seq). */
export function turnEventsChannel(turnId: string): string {
  return `events:${turnId}`;
}
