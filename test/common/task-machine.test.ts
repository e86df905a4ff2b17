import { describe, expect, it } from 'vitest';
import { RoomError } from '../../src-main/common/errors';
import { nextTaskStatus, TASK_STATUSES, type TaskStatus } from '../../src-main/common/task-machine';

const LEGAL: [TaskStatus, TaskStatus][] = [
  ['working', 'input_required'],
  ['working', 'completed'],
  ['working', 'failed'],
  ['working', 'cancelled'],
  ['input_required', 'working'],
  ['input_required', 'completed'],
  ['input_required', 'failed'],
  ['input_required', 'cancelled'],
];

describe('task transitions', () => {
  it.each(LEGAL)('%s → %s is allowed', (from, to) => {
    expect(nextTaskStatus(from, to)).toBe(to);
  });

  const illegal = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as [TaskStatus, TaskStatus])).filter(
    ([from, to]) => !LEGAL.some(([a, b]) => a === from && b === to),
  );
  it.each(illegal)('%s → %s is refused, naming the current state', (from, to) => {
    let error: unknown;
    try {
      nextTaskStatus(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RoomError);
    expect((error as RoomError).code).toBe('CONFLICT');
    expect((error as RoomError).message).toContain(from);
  });
});
