/**
 * The A2A-task part of the storage contract (run by `storage-contract.ts` on
 * every backend): the A2A server's task rows hold the user's messages (their
 * history), so retention deletes those that ended before the cutoff (a task
 * still submitted or working stays, as a running turn does) and forgetting a
 * user deletes the tasks run for that user within the user's tenant, and no
 * other user's or tenant's.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { a2aTaskOwner, ownerKey, type A2aTaskRow, type Storage } from '../../src/store/index.js';

/** A task row as the A2A route writes it: the tenant as owner, the user in the task's metadata. */
function taskRow(tenant: string, userId: string, fields: Partial<A2aTaskRow> = {}): A2aTaskRow {
  const taskId = fields.task_id ?? `task-${randomUUID()}`;
  const state = fields.state ?? 'TASK_STATE_COMPLETED';
  const updatedAt = fields.updated_at ?? new Date().toISOString();
  return {
    owner: a2aTaskOwner(tenant),
    task_id: taskId,
    context_id: 'ctx-1',
    state,
    body: JSON.stringify({ id: taskId, contextId: 'ctx-1', status: { state, timestamp: updatedAt }, history: [{ role: 'ROLE_USER', parts: [{ text: '我的手机号是13800000000' }] }], metadata: { user_id: userId } }),
    updated_at: updatedAt,
    ...fields,
  };
}

/** The A2A-task tests on storages `withStorage` opens. */
export function describeA2aTaskLifetime(withStorage: (body: (storage: Storage) => Promise<void>) => Promise<void>): void {
  describe('a2a tasks: retention and forgetting a user', () => {
    it('retention deletes A2A tasks that ended before the cutoff, keeps running and recent ones', async () => {
      await withStorage(async (storage) => {
        const old = '2020-01-01T00:00:00.000Z';
        const ended = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_INPUT_REQUIRED'].map((state) => taskRow('', 'u1', { state, updated_at: old }));
        const running = taskRow('', 'u1', { state: 'TASK_STATE_WORKING', updated_at: old });
        const recent = taskRow('', 'u1');
        for (const row of [...ended, running, recent]) await storage.a2aTasks.save(row);

        const removed = await storage.deleteOlderThan(new Date('2021-01-01T00:00:00.000Z'));
        expect(removed.a2aTasks).toBe(ended.length);
        for (const row of ended) expect(await storage.a2aTasks.get(row.owner, row.task_id)).toBeUndefined();
        expect(await storage.a2aTasks.get(running.owner, running.task_id)).toEqual(running);
        expect(await storage.a2aTasks.get(recent.owner, recent.task_id)).toEqual(recent);
      });
    });

    it('forgetting a user deletes the A2A tasks run for that user in its tenant only', async () => {
      await withStorage(async (storage) => {
        const mine = [taskRow('', 'u-forget'), taskRow('', 'u-forget', { state: 'TASK_STATE_WORKING' })];
        const otherUser = taskRow('', 'u-stay');
        const otherTenant = taskRow('tenant_b', 'u-forget');
        const named = taskRow('tenant_b', 'u-named');
        for (const row of [...mine, otherUser, otherTenant, named]) await storage.a2aTasks.save(row);

        await storage.forgetUser(ownerKey('', 'u-forget'));
        for (const row of mine) expect(await storage.a2aTasks.get(row.owner, row.task_id)).toBeUndefined();
        expect(await storage.a2aTasks.get(otherUser.owner, otherUser.task_id)).toEqual(otherUser);
        expect(await storage.a2aTasks.get(otherTenant.owner, otherTenant.task_id)).toEqual(otherTenant);

        await storage.forgetUser(ownerKey('tenant_b', 'u-named'));
        expect(await storage.a2aTasks.get(named.owner, named.task_id)).toBeUndefined();
        expect(await storage.a2aTasks.get(otherTenant.owner, otherTenant.task_id)).toEqual(otherTenant);
      });
    });
  });
}
