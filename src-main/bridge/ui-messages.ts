import { z } from 'zod';
import type { ClientMessage } from '../common/ui-protocol';
import { lazily } from '../common/lazily';
import { LIMITS } from '../common/limits';
import { TERMINAL_BOUNDS } from '../common/methods/shells';

/**
 * What the room process accepts from a renderer, checked before anything runs (the protocol's ClientMessage,
 * as a schema). Method inputs are checked again by the contract's own schemas inside `engine.call`. Built on
 * the first message (a room process that no UI connects to never needs it).
 */
const clientMessageSchema = lazily(() => {
  const shellId = z.string().min(1).max(128);
  return z.discriminatedUnion('t', [
    z
      .object({
        t: z.literal('call'),
        id: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
        method: z.string().min(1).max(64),
        input: z.unknown().optional(),
      })
      .strict(),
    z.object({ t: z.literal('shell.attach'), shellId, from: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional() }).strict(),
    z.object({ t: z.literal('shell.detach'), shellId }).strict(),
    z.object({ t: z.literal('shell.ack'), shellId, bytes: z.number().int().min(0).max(2 ** 32) }).strict(),
    // the byte limit is the engine's (checked on the UTF-8 bytes there); this bounds the string before it
    z.object({ t: z.literal('shell.input'), shellId, text: z.string().max(LIMITS.shellMaxInputBytes) }).strict(),
    z
      .object({
        t: z.literal('shell.resize'),
        shellId,
        cols: z.number().int().min(TERMINAL_BOUNDS.cols.min).max(TERMINAL_BOUNDS.cols.max),
        rows: z.number().int().min(TERMINAL_BOUNDS.rows.min).max(TERMINAL_BOUNDS.rows.max),
        take: z.boolean().optional(),
      })
      .strict(),
  ]);
});

export type ParsedClientMessage =
  | { ok: true; message: ClientMessage }
  | { ok: false; reason: string; /** the call id, when the message was a recognisable call */ callId?: number; shellId?: string };

/** Parses one message, saying what was wrong in words a developer of the renderer can act on. */
export function parseClientMessage(raw: unknown): ParsedClientMessage {
  const parsed = clientMessageSchema().safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data as ClientMessage };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  const reason = `malformed UI message${where}: ${issue?.message ?? 'not a message'} (see common/ui-protocol.ts ClientMessage)`;
  const record = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const result: ParsedClientMessage = { ok: false, reason };
  if (record.t === 'call' && typeof record.id === 'number' && Number.isSafeInteger(record.id)) result.callId = record.id;
  if (typeof record.shellId === 'string' && record.shellId.length <= 128) result.shellId = record.shellId;
  return result;
}
