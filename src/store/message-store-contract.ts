/**
 * The shared contract every `MessageStore` implementation must pass.
 * Call it from a test file with a factory for a fresh, empty store.
 */
import { expect, it, describe } from 'vitest';
import type { MessageStore, StoredMessage } from './types.js';

function message(seq: number, role: StoredMessage['role'], content: string): StoredMessage {
  return { seq, role, content, created_at: new Date(2026, 0, 1, 0, 0, seq).toISOString() };
}

export function runMessageStoreContract(name: string, create: () => Promise<MessageStore> | MessageStore): void {
  describe(`MessageStore contract: ${name}`, () => {
    it('appends and lists in sequence order', async () => {
      const store = await create();
      await store.appendMessages('u1', 's1', [message(2, 'assistant', 'b'), message(1, 'user', 'a')]);
      const rows = await store.listMessages('u1', 's1');
      expect(rows.map((row) => row.content)).toEqual(['a', 'b']);
      await store.close();
    });

    it('ignores a repeated (user, session, seq) insert', async () => {
      const store = await create();
      await store.appendMessages('u1', 's1', [message(1, 'user', 'first')]);
      await store.appendMessages('u1', 's1', [message(1, 'user', 'again')]);
      expect((await store.listMessages('u1', 's1')).map((row) => row.content)).toEqual(['first']);
      await store.close();
    });

    it('tracks who has a session and the next sequence number', async () => {
      const store = await create();
      expect(await store.sessionAccess('u1', 's9')).toBe('none');
      expect(await store.nextSeq('u1', 's9')).toBe(1);
      await store.appendMessages('u1', 's9', [message(1, 'user', 'x'), message(2, 'assistant', 'y')]);
      expect(await store.sessionAccess('u1', 's9')).toBe('owner');
      expect(await store.sessionAccess('u2', 's9')).toBe('other');
      expect(await store.nextSeq('u1', 's9')).toBe(3);
      await store.close();
    });

    it('lets two users use the same session id independently', async () => {
      const store = await create();
      await store.appendMessages('u1', 'shared', [message(1, 'user', 'from u1')]);
      await store.appendMessages('u2', 'shared', [message(1, 'user', 'from u2')]);
      expect(await store.sessionAccess('u2', 'shared')).toBe('owner');
      expect((await store.listMessages('u1', 'shared')).map((row) => row.content)).toEqual(['from u1']);
      expect((await store.listMessages('u2', 'shared')).map((row) => row.content)).toEqual(['from u2']);
      await store.close();
    });

    it('keeps sessions of different users apart', async () => {
      const store = await create();
      await store.appendMessages('u1', 's1', [message(1, 'user', 'mine')]);
      expect(await store.listMessages('u2', 's1')).toEqual([]);
      await store.close();
    });

    it('round-trips metadata and returns copies', async () => {
      const store = await create();
      await store.appendMessages('u1', 's1', [{ ...message(1, 'assistant', 'x'), metadata: { agents: ['a'] } }]);
      const first = await store.listMessages('u1', 's1');
      expect(first[0]!.metadata).toEqual({ agents: ['a'] });
      first[0]!.content = 'changed';
      expect((await store.listMessages('u1', 's1'))[0]!.content).toBe('x');
      await store.close();
    });
  });
}
