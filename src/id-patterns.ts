/**
 * What every id a client or operator hands the server may look like, in one
 * place: the HTTP edge validates request bodies, path and query parameters
 * and headers against these once, and nothing behind it checks again. Each
 * rule carries its pattern (a JSON Schema `pattern` string, also published in
 * the OpenAPI document) and the wording of the error that names it.
 */

/** One kind of id: its pattern and the characters it allows, in words. */
export interface IdRule {
  /** Anchored regular-expression source, usable as a JSON Schema `pattern`. */
  readonly pattern: string;
  /** Longest allowed value (also inside `pattern`; JSON Schema wants it separately). */
  readonly maxLength: number;
  /** The allowed characters and length, for error messages. */
  readonly allowed: string;
}

/** The ids of the API (session ids `[A-Za-z0-9_.:-]{1,128}`). */
export const ID_RULES = {
  /** A conversation. */
  session_id: { pattern: '^[A-Za-z0-9_.:-]{1,128}$', maxLength: 128, allowed: 'letters, digits and _ . : - (1 to 128 characters)' },
  /** An end user: as a session id, plus `@` so e-mail-like ids pass (never `/`, the owner-key separator). */
  user_id: { pattern: '^[A-Za-z0-9_.:@-]{1,128}$', maxLength: 128, allowed: 'letters, digits and _ . : @ - (1 to 128 characters)' },
  /** A task named in `confirm` / `reject`. */
  task_id: { pattern: '^[A-Za-z0-9_.:-]{1,200}$', maxLength: 200, allowed: 'letters, digits and _ . : - (1 to 200 characters)' },
  /** A caller's `x-trace-id` / `x-request-id` (anything else gets a fresh id). */
  trace_id: { pattern: '^[A-Za-z0-9_.:-]{1,128}$', maxLength: 128, allowed: 'letters, digits and _ . : - (1 to 128 characters)' },
  /** An `Idempotency-Key` header. */
  idempotency_key: { pattern: '^[\\x21-\\x7e]{1,200}$', maxLength: 200, allowed: '1 to 200 visible ASCII characters' },
  /** A tenant name in `SWITCHBOARD_API_KEYS` (`key=tenant`). */
  tenant: { pattern: '^[A-Za-z0-9_.-]{1,64}$', maxLength: 64, allowed: 'letters, digits and _ . - (1 to 64 characters)' },
} as const satisfies Record<string, IdRule>;

/** A kind of id with a rule. */
export type IdKind = keyof typeof ID_RULES;

const REGEXES: Readonly<Record<IdKind, RegExp>> = Object.freeze(
  Object.fromEntries(Object.entries(ID_RULES).map(([kind, rule]) => [kind, new RegExp(rule.pattern)])) as Record<IdKind, RegExp>,
);

/** True when `value` is a string of the given kind. */
export function isValidId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && REGEXES[kind].test(value);
}
