import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { HandoffRecord } from '../store/handoffs';
import type { ParticipantRecord } from '../store/participants';

/**
 * Who may take each step of a handoff: the role rules `HandoffActions` applies after the state machine has
 * said the step is possible. Each refuses with FORBIDDEN (or names what is wrong with an addressee).
 */

const canApprove = (caller: Caller) => caller.capabilities.includes('approve');

function forbid(message: string): never {
  throw new RoomError('FORBIDDEN', message);
}

/** Who may accept: the addressee, or (addressed to anyone) anyone but its owner. */
export function mayAccept(caller: Caller, h: HandoffRecord): void {
  if (h.target !== null && h.target !== caller.name) forbid(`handoff ${h.id} is addressed to ${h.target}; only ${h.target} can accept it`);
  if (h.target === null && h.owner === caller.name) forbid(`you created handoff ${h.id}; another participant accepts it`);
}

export function mayDecide(caller: Caller, approved: boolean): void {
  if (!canApprove(caller)) forbid(`${approved ? 'approving' : 'rejecting'} needs the "approve" capability`);
}

/** `what`: the step, as the refusal says it ("complete it"). */
export function mustBeAssignee(caller: Caller, h: HandoffRecord, what: string): void {
  if (h.assignee !== caller.name) forbid(`only the handoff's assignee (${h.assignee ?? 'nobody yet'}) can ${what}`);
}

/** Answering its input and cancelling it: its owner, or a person who can approve. `what`: "cancels it". */
export function mustBeOwnerOrApprover(caller: Caller, h: HandoffRecord, what: string): void {
  if (h.owner !== caller.name && !canApprove(caller)) forbid(`only the handoff's owner (${h.owner}) or a participant who can approve ${what}`);
}

/** A handoff may be addressed to another active participant who can write (`target`: the one named `to`). */
export function mayAddress(caller: Caller, to: string, target: ParticipantRecord | null): void {
  if (!target || target.revokedAt !== null) {
    throw new RoomError('NOT_FOUND', `no active participant named "${to}": check the name, or omit "to" to let anyone accept it`);
  }
  if (to === caller.name) throw new RoomError('INVALID_INPUT', 'a handoff goes to another participant: omit "to" or name someone else');
  if (!target.capabilities.includes('write')) {
    throw new RoomError('INVALID_INPUT', `${to} cannot accept handoffs (it lacks the "write" capability): address someone who can`);
  }
}
