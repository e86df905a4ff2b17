import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';

/**
 * The browser UI's sign-ins (volatile: they end with the room process). A UI session acts as the operator, so
 * only the operator itself mints a sign-in link, lists or revokes them: `operate` alone is not enough.
 */
export const UI_METHODS = {
  ui_link_create: {
    description:
      'A new one-time sign-in link for the browser UI (served by "commonroom serve"). Opening it signs that browser tab in as the operator; a second use is refused. Only the operator may mint one. ' +
      '`for`: "tab" or "phone" (the UI\'s "Open in another tab" and "Sign in a phone"): the link expires 5 minutes after it is made, and the sign-in is listed as made for that.',
    capability: 'operate',
    input: lazily(() => z.object({ for: z.enum(['tab', 'phone']).optional() }).strict()),
    mcpTool: false,
  },
  ui_session_list: {
    description: 'The browser UI sessions signed in now: when each began, when it was last used, its browser, its open sockets.',
    capability: 'operate',
    input: lazily(() => z.object({}).strict()),
    mcpTool: false,
    readOnly: true,
  },
  ui_session_revoke: {
    description: 'Signs a browser UI session out at once: its sockets close and its tab must sign in again with a new link.',
    capability: 'operate',
    input: lazily(() => z.object({ sessionId: z.string().min(1).max(64) }).strict()),
    mcpTool: false,
  },
} satisfies Record<string, MethodSpec>;

export interface UiSessionView {
  id: string;
  /** What its link was made for: printed (serve, `ce ui-link`), or from the UI for another tab or a phone. */
  purpose: 'link' | 'tab' | 'phone';
  createdAt: string;
  lastSeenAt: string;
  /** The browser's User-Agent at sign-in, cut to 200 characters. */
  userAgent: string;
  /** Open UI sockets of this session (tabs connected now). */
  sockets: number;
}

export interface UiOutputs {
  /** `expiresAt`: when an unused link stops working (null: it keeps until used or the room process stops). */
  ui_link_create: { url: string; expiresAt: string | null };
  ui_session_list: { sessions: UiSessionView[]; served: boolean };
  ui_session_revoke: { revoked: boolean };
}
