/**
 * Authenticated encryption (AES-256-GCM) of the few personal values that must
 * outlive a turn in their real form: the inputs of a parked task, which its
 * agent receives when the task finally runs (docs/api.md#personal-data). Everything else is
 * masked at rest; these are sealed instead, so the database never holds them
 * readable.
 *
 * The key comes from `SWITCHBOARD_DATA_KEY` (any secret string; every replica
 * of a deployment sets the same one, so a task parked on one replica runs on
 * another). Without it the deployment's key is drawn once and kept in the
 * storage backend (`stored-data-key.ts`). A seal that does not open (another
 * key) makes a resumed parked task ask the user for those values again.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Seals JSON values for storage and opens them again. */
export interface DataSealer {
  /** The value as an opaque sealed string. */
  seal(value: unknown): string;
  /** The value sealed in `sealed`, or undefined when it cannot be opened (another key, altered text). */
  open(sealed: string): unknown;
  /** True when the key is shared by configuration (sealed values open on every replica and after a restart). */
  readonly shared: boolean;
}

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealer keyed by `secret` (e.g. `SWITCHBOARD_DATA_KEY`), or by a random per-process key when it is absent or empty. */
export function createDataSealer(secret?: string): DataSealer {
  const shared = typeof secret === 'string' && secret.length > 0;
  const material = shared ? Buffer.from(secret, 'utf8') : randomBytes(32);
  const key = Buffer.from(hkdfSync('sha256', material, 'switchboard', 'parked task values', 32));
  return {
    shared,
    seal(value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      const data = Buffer.concat([cipher.update(JSON.stringify(value) ?? 'null', 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed) {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(parts[1]!, 'base64url'), { authTagLength: TAG_BYTES });
        decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
        const text = Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
