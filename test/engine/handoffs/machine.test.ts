import { describe, expect, it } from 'vitest';
import { RoomError } from '../../../src-main/common/errors';
import { HANDOFF_ACTIONS, HANDOFF_STATUSES, planHandoff, type HandoffAction, type HandoffState } from '../../../src-main/common/handoff-machine';
import { TASK_STATUSES, type TaskStatus } from '../../../src-main/common/task-machine';

type Row = [HandoffAction, HandoffState, HandoffState];

/** Every legal move; anything else (every action from every pair of states) must be refused. */
const LEGAL: Row[] = [
  ['accept', { handoff: 'open', task: 'working' }, { handoff: 'accepted', task: 'working' }],
  ['request_input', { handoff: 'accepted', task: 'working' }, { handoff: 'accepted', task: 'input_required' }],
  ['answer_input', { handoff: 'accepted', task: 'input_required' }, { handoff: 'accepted', task: 'working' }],
  ['complete', { handoff: 'accepted', task: 'working' }, { handoff: 'result_ready', task: 'completed' }],
  ['approve', { handoff: 'result_ready', task: 'completed' }, { handoff: 'approved', task: 'completed' }],
  ['approve', { handoff: 'result_ready', task: null }, { handoff: 'approved', task: null }],
  ['reject', { handoff: 'result_ready', task: 'completed' }, { handoff: 'rejected', task: 'completed' }],
  ['reject', { handoff: 'result_ready', task: null }, { handoff: 'rejected', task: null }],
  ['cancel', { handoff: 'open', task: 'working' }, { handoff: 'cancelled', task: 'cancelled' }],
  ['cancel', { handoff: 'accepted', task: 'working' }, { handoff: 'cancelled', task: 'cancelled' }],
  ['cancel', { handoff: 'accepted', task: 'input_required' }, { handoff: 'cancelled', task: 'cancelled' }],
  ['expire', { handoff: 'open', task: 'working' }, { handoff: 'cancelled', task: 'failed' }],
  ['expire', { handoff: 'accepted', task: 'working' }, { handoff: 'cancelled', task: 'failed' }],
  ['expire', { handoff: 'accepted', task: 'input_required' }, { handoff: 'cancelled', task: 'failed' }],
];

const sameState = (a: HandoffState, b: HandoffState) => a.handoff === b.handoff && a.task === b.task;

describe('handoff transitions', () => {
  it.each(LEGAL)('%s from %o gives %o', (action, from, to) => {
    expect(planHandoff(action, from)).toEqual(to);
  });

  it('answering one of several requests keeps the task input_required', () => {
    expect(planHandoff('answer_input', { handoff: 'accepted', task: 'input_required' }, { remainingInputs: 1 })).toEqual({
      handoff: 'accepted',
      task: 'input_required',
    });
  });

  // every pair the two machines can reach together (the task row is null once deleted after its TTL)
  const states: HandoffState[] = [
    { handoff: 'open', task: 'working' },
    { handoff: 'accepted', task: 'working' },
    { handoff: 'accepted', task: 'input_required' },
    ...(['result_ready', 'approved', 'rejected'] as const).flatMap((handoff) => [
      { handoff, task: 'completed' as const },
      { handoff, task: null },
    ]),
    ...(['cancelled', 'failed', null] as const).map((task) => ({ handoff: 'cancelled' as const, task })),
  ];

  it('the reachable pairs cover every handoff status and every task status', () => {
    expect(new Set(states.map((s) => s.handoff))).toEqual(new Set(HANDOFF_STATUSES));
    expect(new Set(states.map((s) => s.task).filter((t): t is TaskStatus => t !== null))).toEqual(new Set(TASK_STATUSES));
  });
  const illegal = HANDOFF_ACTIONS.flatMap((action) => states.map((s) => [action, s] as [HandoffAction, HandoffState])).filter(
    ([action, s]) => !LEGAL.some(([a, from]) => a === action && sameState(from, s)),
  );

  it('the table covers every action and state', () => {
    expect(illegal.length + LEGAL.length).toBe(HANDOFF_ACTIONS.length * states.length);
  });

  it.each(illegal)('%s from %o is refused, naming the current state', (action, from) => {
    let error: unknown;
    try {
      planHandoff(action, from);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RoomError);
    expect((error as RoomError).code).toBe('CONFLICT');
    const message = (error as RoomError).message;
    const namesState = message.includes(from.handoff) || (from.task !== null && message.includes(from.task)) || message.includes('no longer exists');
    expect(namesState, message).toBe(true);
    expect((error as RoomError).details).toEqual({ handoffStatus: from.handoff, taskStatus: from.task });
  });

  it('a second completion says it does not replace the result', () => {
    expect(() => planHandoff('complete', { handoff: 'result_ready', task: 'completed' })).toThrow(/does not replace/);
  });
});
