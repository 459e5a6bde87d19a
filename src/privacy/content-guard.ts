/**
 * The guard every user-facing text of a turn passes (each event's content, the
 * streamed model answer): agent ids become the agent's name, endpoint URLs
 * and `host:port` parts of the registry a neutral word, and every header
 * value of any agent `[redacted]`, as written or in disguise (upper-cased,
 * with invisible characters or spaces inside, percent-, hex- or
 * base64-encoded: `text/disguised-secrets.ts`). With a language, words shaped like an
 * agent id but naming none (a model's invention) become a neutral phrase too.
 * One scrubber (`text/id-scrubber.ts`) does the work, in one pass; its
 * streams also keep personal values whole (they are shown to the user as they
 * are, and masked in storage one event at a time).
 */
import { agentSecrets, disguisedAgentSecrets } from './agent-secrets.js';
import { personalValuesKeptWhole } from './pii-masker.js';
import { relatedServiceText } from '../i18n/index.js';
import { cardName, type RegistrySnapshot } from '../registry/index.js';
import { createTextScrubber, idTerms, inventedIdPattern, secretTerms, type ScrubTerm, type TextScrubber } from '../text/index.js';

/** What stands in for an endpoint address of the registry. */
const ADDRESS_REPLACEMENT = '[internal address]';
/** What stands in for a header value, as written or in disguise. */
const SECRET_REPLACEMENT = '[redacted]';

/** Options of the content guard. */
export interface ContentGuardOptions {
  /** Also replace made-up ids (`*_agent`) with a neutral phrase in this language (model-written text). */
  inventedIdsIn?: 'zh' | 'en';
  /** The language an agent id is replaced by the agent's name in (its `names` entry, else its name). */
  namesIn?: 'zh' | 'en';
}

/** Builds the content guard of one registry snapshot. */
export function createContentGuard(snapshot: RegistrySnapshot, options: ContentGuardOptions = {}): TextScrubber {
  return createTextScrubber({
    terms: guardedTerms(snapshot, options.namesIn),
    patterns: options.inventedIdsIn ? [inventedIdPattern(relatedServiceText(options.inventedIdsIn))] : [],
    keepWhole: personalValuesKeptWhole(snapshot.supervisor.piiPatterns ?? []),
    disguised: { secrets: disguisedAgentSecrets(snapshot), replacement: SECRET_REPLACEMENT },
  });
}

/**
 * The part of the guard that applies to data rather than prose: every header
 * value and endpoint address of the registry, but not agent ids (events and
 * task records name agents by id on purpose). Used on every field of an event
 * (`metadata.state`, `semantic_info`, a confirmation) and on a sub-agent's
 * structured output as it arrives, so no stored or shown form keeps a secret.
 */
export function createSecretGuard(snapshot: RegistrySnapshot): TextScrubber {
  return createTextScrubber({
    terms: [...secretTerms(agentSecrets(snapshot), SECRET_REPLACEMENT), ...addressTerms(snapshot)],
    disguised: { secrets: disguisedAgentSecrets(snapshot), replacement: SECRET_REPLACEMENT },
  });
}

/** A deep copy of a JSON-like value with `scrub` applied to every string (object keys included). */
export function scrubDeep<T>(value: T, scrub: (text: string) => string): T {
  const visit = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return scrub(item);
    if (depth > 64 || item === null || typeof item !== 'object') return item;
    if (Array.isArray(item)) return item.map((child) => visit(child, depth + 1));
    // Own enumerable keys, as Object.entries gives them, without the pairs it allocates.
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(item)) {
      const name = scrub(key);
      const child = visit((item as Record<string, unknown>)[key], depth + 1);
      // A key named `__proto__` stays a key (as with Object.fromEntries), never the copy's prototype.
      if (name === '__proto__') Object.defineProperty(copy, name, { value: child, enumerable: true, writable: true, configurable: true });
      else copy[name] = child;
    }
    return copy;
  };
  return visit(value, 0) as T;
}

/** What the dispatcher emits of one sub-agent's text: progress messages now, and at its end the rest and its result. */
export interface SubAgentText {
  /** The progress messages that may be shown now (0, 1 or 2) for one that arrived. */
  progress(message: string): string[];
  /** The end of the agent's text: progress still held, and its result message (undefined when it sent none) as it may be shown and kept. */
  end(message: string | undefined): { progress: string[]; message: string | undefined };
}

/**
 * A sub-agent's text as one stream: its progress messages and its result's
 * message, in that order, through the guard's message stream. A secret or an
 * id the agent cuts between its last progress message and its result is seen
 * whole and replaced whole (the part in the progress moves into the result);
 * what is left of the result is what the answer and every stored form keep.
 */
export function createSubAgentText(guard: TextScrubber): SubAgentText {
  const stream = guard.messages<'progress' | 'result'>();
  const texts = (shown: { text: string; tag: 'progress' | 'result' }[], tag: 'progress' | 'result') => shown.filter((item) => item.tag === tag).map((item) => item.text);
  return {
    progress: (message) => texts(stream.push(message, 'progress'), 'progress'),
    end(message) {
      if (typeof message !== 'string' || message.trim() === '') return { progress: texts(stream.flush(), 'progress'), message };
      const shown = [...stream.push(message, 'result'), ...stream.flush()];
      return { progress: texts(shown, 'progress'), message: texts(shown, 'result').join('') };
    },
  };
}

function guardedTerms(snapshot: RegistrySnapshot, namesIn: 'zh' | 'en' | undefined): ScrubTerm[] {
  const named = namesIn ? snapshot.agents.map((card) => ({ id: card.id, name: cardName(card, namesIn) })) : snapshot.agents;
  return [...idTerms(named), ...secretTerms(agentSecrets(snapshot)), ...addressTerms(snapshot)];
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
