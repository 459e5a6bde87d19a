/**
 * What the user knows a parked task by, for the notices about tasks a turn
 * dropped or runs (the sentences themselves live in `i18n/notice-texts.ts`).
 */
import { type Language, unknownServiceText } from '../../i18n/index.js';
import { cardName } from '../../registry/localized-text.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import type { PendingTask } from '../state.js';

/** Each task's confirmation summary, else its service name in `language`. */
export function parkedTaskLabels(tasks: readonly PendingTask[], snapshot: RegistrySnapshot, language: Language): string[] {
  return tasks.map((task) => {
    if (task.confirmation) return task.confirmation.summary;
    const card = snapshot.byId.get(task.agent_id);
    return card ? cardName(card, language) : unknownServiceText(language);
  });
}
