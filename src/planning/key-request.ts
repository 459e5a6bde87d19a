/**
 * How a key is asked for: the one place that turns "this agent needs these
 * keys" into what the user sees (`semantic_info`: each key's description in the
 * turn's language, the widget the front end shows, the values a picker
 * offers). The semantic check asks for keys a plan lacks or got wrong, task
 * dispatch for keys an agent asks for itself (`input_required`) or a value
 * without a source; both call `keyRequest`.
 */
import { type AgentCard, keyDescription, type SemanticKeySpec } from '../registry/index.js';
import type { SemanticInfo } from '../events/index.js';

/** A request for keys: `metadata.semantic_info[]`, whose type the events room owns. */
export type KeyRequest = SemanticInfo;

/** How to ask (all optional). */
export interface KeyRequestOptions {
  /** `miss` (default): the keys have no value; `invalid`: the values given were refused. */
  type?: KeyRequest['type'];
  /** The registry's `widgets` dictionary: the widget of a key the card does not declare (an agent may ask for one). */
  widgets?: Readonly<Record<string, string>>;
}

/**
 * The request for `keys` of `card`: descriptions in `language` where the registry
 * gives them per language (the default description without a language), the key's
 * widget, an enum key's options. A key the card does not declare is described by
 * its name.
 */
export function keyRequest(card: AgentCard, keys: readonly string[], language: string | undefined, options: KeyRequestOptions = {}): KeyRequest {
  const specs = keys.map((key) => card.requiredKeys.find((spec) => spec.key === key));
  return {
    type: options.type ?? 'miss',
    sub_agent_id: card.id,
    keys: [...keys],
    key_descriptions: keys.map((key, index) => {
      const spec = specs[index];
      if (!spec) return key;
      return language ? keyDescription(spec, language) : spec.description;
    }),
    fe_widgets_suggestion: keys.map((key, index) => specs[index]?.widget ?? options.widgets?.[key] ?? ''),
    key_options: specs.map((spec) => keyOptions(spec, language)),
  };
}

/**
 * The allowed values of an enum key (what a picker shows), `[]` for free
 * input. An enum that lists its values in several languages (`[北京, 上海,
 * Beijing, Shanghai]`) offers those written in the turn's language: Chinese
 * ones to a Chinese query, the others to an English one; every value when
 * none is written in that language (or the language is unknown).
 */
export function keyOptions(spec: SemanticKeySpec | undefined, language?: string): string[] {
  if (spec?.extract.type !== 'enum') return [];
  const values = [...spec.extract.values];
  if (language !== 'zh' && language !== 'en') return values;
  const inLanguage = values.filter((value) => HAN.test(value) === (language === 'zh'));
  return inLanguage.length > 0 ? inLanguage : values;
}

const HAN = /[\u3400-\u9fff]/;
