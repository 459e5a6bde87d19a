/**
 * The guard every user-facing text of a turn passes (each event's content, the
 * streamed model answer): agent ids become the agent's name, endpoint URLs
 * and `host:port` parts of the registry a neutral word, and every header
 * value of any agent `[redacted]`. With a language, words shaped like an
 * agent id but naming none (a model's invention) become a neutral phrase too.
 * One scrubber (`text/id-scrubber.ts`) does the work, in one pass; its
 * streams also keep personal values whole (they are shown to the user as they
 * are, and masked in storage one event at a time).
 */
import { agentSecrets } from './agent-secrets.js';
import { personalValuesKeptWhole } from './pii-masker.js';
import { relatedServiceText } from '../i18n/index.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { createTextScrubber, idTerms, inventedIdPattern, secretTerms, type ScrubTerm, type TextScrubber } from '../text/id-scrubber.js';

/** What stands in for an endpoint address of the registry. */
const ADDRESS_REPLACEMENT = '[internal address]';

/** Options of the content guard. */
export interface ContentGuardOptions {
  /** Also replace made-up ids (`*_agent`) with a neutral phrase in this language (model-written text). */
  inventedIdsIn?: 'zh' | 'en';
}

/** Builds the content guard of one registry snapshot. */
export function createContentGuard(snapshot: RegistrySnapshot, options: ContentGuardOptions = {}): TextScrubber {
  return createTextScrubber({
    terms: guardedTerms(snapshot),
    patterns: options.inventedIdsIn ? [inventedIdPattern(relatedServiceText(options.inventedIdsIn))] : [],
    keepWhole: personalValuesKeptWhole(snapshot.supervisor.piiPatterns ?? []),
  });
}

function guardedTerms(snapshot: RegistrySnapshot): ScrubTerm[] {
  return [...idTerms(snapshot.agents), ...secretTerms(agentSecrets(snapshot)), ...addressTerms(snapshot)];
}

/** Endpoint URLs of the registry (and the ticket webhook) and their `host:port` / host parts. */
function addressTerms(snapshot: RegistrySnapshot): ScrubTerm[] {
  const found = new Set<string>();
  const webhook = snapshot.supervisor.escalation?.webhookUrl;
  for (const address of [...snapshot.agents.map((card) => card.endpoint.url), ...(webhook ? [webhook] : [])]) {
    found.add(address);
    try {
      const url = new URL(address);
      found.add(`${url.origin}${url.pathname}`);
      found.add(url.host);
      // A bare host name is only an address when it is not an ordinary word.
      if (url.hostname.includes('.') || url.hostname.includes(':')) found.add(url.hostname);
    } catch {
      // An unparseable url was refused at load; nothing more to add.
    }
  }
  return [...found].filter((address) => address.length >= 4).map((text) => ({ text, replacement: ADDRESS_REPLACEMENT }));
}
