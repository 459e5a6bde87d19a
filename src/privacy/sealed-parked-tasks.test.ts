import { describe, expect, it } from 'vitest';
import type { PendingTask } from '../store/parked-task.js';
import { createDataSealer } from './data-sealer.js';
import { createPiiMasker } from './pii-masker.js';
import { openPendingTask, sealPendingTask } from './sealed-parked-tasks.js';

const masker = createPiiMasker();
const task: PendingTask = {
  task_id: 'p1_task_1',
  agent_id: 'checkup_agent',
  description: '预约体检，电话 13912345678',
  inputs: { phone: '13912345678', date: '2026-12-01', card: 6222021234567890128 },
  missing_keys: [],
  parked_at: '2026-11-23T10:00:00.000Z',
  confirmation: { summary: '体检预约：电话 13912345678，日期 2026-12-01', language: 'zh' },
};

describe('sealed parked tasks', () => {
  it('stores masked text and plain non-personal inputs, and opens back to the real task', () => {
    const sealer = createDataSealer('a shared deployment key');
    const stored = sealPendingTask(task, masker, sealer);
    const text = JSON.stringify(stored);
    expect(text).not.toContain('13912345678');
    expect(text).not.toContain('6222021234567890128');
    expect(stored.description).toBe('预约体检，电话 139****5678');
    expect(stored.inputs).toEqual({ date: '2026-12-01' });
    expect(stored.sealed?.keys).toEqual(['phone', 'card']);
    // Another replica with the same configured key opens it.
    expect(openPendingTask(JSON.parse(text), createDataSealer('a shared deployment key'))).toEqual(task);
  });

  it('stores the outputs of its upstream tasks masked, also when nothing else of it is personal', () => {
    const held: PendingTask = {
      task_id: 'p2_task_2',
      agent_id: 'vet_booking_agent',
      description: '预约兽医',
      inputs: { date: '2026-12-05' },
      missing_keys: [],
      upstream: [{ task_id: 'p2_task_1', agent_id: 'vaccine_agent', output: { due: ['rabies'], clinic_phone: '13912345678' } }],
    };
    const stored = sealPendingTask(held, masker, createDataSealer('k'));
    expect(JSON.stringify(stored)).not.toContain('13912345678');
    expect(stored.upstream?.[0]?.output).toEqual({ due: ['rabies'], clinic_phone: '139****5678' });
    expect(held.upstream?.[0]?.output.clinic_phone).toBe('13912345678');
  });

  it('leaves a task without personal data untouched', () => {
    const plain: PendingTask = { agent_id: 'weather_agent', description: '查天气', inputs: { city: '北京' }, missing_keys: ['date'] };
    const stored = sealPendingTask(plain, masker, createDataSealer('k'));
    expect(stored).toEqual(plain);
    expect(openPendingTask(stored, createDataSealer('other'))).toEqual(plain);
  });

  it('asks again for sealed keys it cannot open (another key), and no longer awaits a confirmation', () => {
    const stored = sealPendingTask(task, masker, createDataSealer());
    const opened = openPendingTask(stored, createDataSealer());
    expect(opened.inputs).toEqual({ date: '2026-12-01' });
    expect(opened.missing_keys).toEqual(['phone', 'card']);
    expect(opened.confirmation).toBeUndefined();
    expect(opened.description).toBe('预约体检，电话 139****5678');
    // An altered seal does not open either.
    const tampered = { ...stored, sealed: { ...stored.sealed!, data: stored.sealed!.data.slice(0, -2) + 'AA' } };
    expect(openPendingTask(tampered, createDataSealer('a shared deployment key')).missing_keys).toEqual(['phone', 'card']);
  });
});
