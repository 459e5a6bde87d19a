/**
 * What a semantic key is and how its value is recognised in text (the
 * normalised form of a registry's `required_semantic_keys` and their
 * `extract`). They live in the text layer because the extractors read them;
 * the registry builds them and re-exports them with its other shapes.
 */
import type { SafePattern } from '../util/index.js';

/** How a semantic key's value is recognised in text (normalised from `extract`). */
export type ExtractSpec =
  | { type: 'date' }
  | { type: 'number'; min?: number; max?: number }
  | { type: 'phone' }
  | { type: 'email' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'pattern'; pattern: string; flags: string; matcher: SafePattern }
  | { type: 'text' };

/** One entry of `required_semantic_keys`, widget already resolved. */
export interface SemanticKeySpec {
  readonly key: string;
  /** Default text (Chinese first when the registry gives a map). */
  readonly description: string;
  /** Description per language when the registry gives a map (`{ zh: 入住城市, en: check-in city }`). */
  readonly descriptions?: Readonly<Record<string, string>>;
  /** Resolved: key spec → `widgets` dictionary → "". */
  readonly widget: string;
  readonly extract: ExtractSpec;
  /** `remember: true`: a value given for this key may become a long-term profile fact (docs/api.md#registry-file); default false. */
  readonly remember?: boolean;
}
