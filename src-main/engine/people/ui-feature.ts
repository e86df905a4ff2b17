import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { Feature } from '../room/index';
import { SHORT_LINK_MS, type BrowserSignIns } from './sign-ins';

type UiMethods = 'ui_link_create' | 'ui_session_list' | 'ui_session_revoke';

/** A UI session acts as the operator: only the operator (not an agent with `operate`) handles sign-ins. */
function operatorOnly(caller: Caller): void {
  if (caller.role !== 'operator') {
    throw new RoomError('FORBIDDEN', 'only the operator handles browser UI sign-ins (a UI session acts as the operator): ask the person at the desktop');
  }
}

export function uiFeature(sessions: BrowserSignIns): Feature<UiMethods> {
  return {
    name: 'ui',
    handlers: {
      ui_link_create: (caller, input) => {
        operatorOnly(caller);
        // a link made in the UI for another tab or a phone is opened at once: it is short-lived
        if (!input.for) return { url: sessions.mintLink().toString(), expiresAt: null };
        const url = sessions.mintLink({ ttlMs: SHORT_LINK_MS, purpose: input.for });
        return { url: url.toString(), expiresAt: new Date(Date.now() + SHORT_LINK_MS).toISOString() };
      },
      ui_session_list: (caller) => {
        operatorOnly(caller);
        return { sessions: sessions.list(), served: sessions.served };
      },
      ui_session_revoke: (caller, input) => {
        operatorOnly(caller);
        const revoked = sessions.revoke(input.sessionId);
        if (!revoked) throw new RoomError('NOT_FOUND', `no browser UI session ${JSON.stringify(input.sessionId)}: see "ce ui-sessions"`);
        return { revoked };
      },
    },
  };
}
