/**
 * The user-facing name of the service behind an agent id: its card name in
 * the turn's language, or a generic phrase when the card is gone (a registry
 * edit removed it mid-conversation). Agent ids never reach users.
 */
import { type Language, unknownServiceText } from '../i18n/index.js';
import { cardName, type RegistrySnapshot } from '../registry/index.js';

/** A lookup from agent id to service name in `language`. */
export function serviceNames(snapshot: Pick<RegistrySnapshot, 'byId'>, language: Language): (agentId: string) => string {
  return (agentId) => {
    const card = snapshot.byId.get(agentId);
    return card ? cardName(card, language) : unknownServiceText(language);
  };
}
