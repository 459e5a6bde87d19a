/**
 * `${VAR}` and `${VAR:-default}` in endpoint urls and headers, read from an
 * environment record. Resolved values may be secrets: nothing here ever puts a
 * value into a message, only variable names.
 */

/** Result of interpolating one string. */
export type InterpolationResult =
  | { ok: true; value: string; variables: string[] }
  | { ok: false; missing: string[]; malformed?: string };

const REFERENCE = /\$\{([^}]*)\}/g;
const REFERENCE_BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * Replaces every `${NAME}` (must be set; an empty value counts as set) and
 * `${NAME:-fallback}` (fallback when unset or empty, as in a POSIX shell).
 */
export function interpolateEnv(template: string, env: Readonly<Record<string, string | undefined>>): InterpolationResult {
  const missing: string[] = [];
  const variables: string[] = [];
  let malformed: string | undefined;
  const value = template.replace(REFERENCE, (whole, body: string) => {
    const match = REFERENCE_BODY.exec(body);
    if (!match) {
      malformed ??= whole;
      return '';
    }
    const name = match[1] as string;
    const fallback = match[2];
    variables.push(name);
    const current = env[name];
    if (fallback !== undefined) return current === undefined || current === '' ? fallback : current;
    if (current === undefined) {
      missing.push(name);
      return '';
    }
    return current;
  });
  if (malformed !== undefined) return { ok: false, missing, malformed };
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, value, variables };
}
