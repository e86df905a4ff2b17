import type { z } from 'zod';
import { RoomError } from './errors';

/** Turns a schema failure into one line a person can act on. */
export function describeInvalidInput(method: string, error: z.ZodError): RoomError {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
    return `${where}: ${issue.message}`;
  });
  return new RoomError('INVALID_INPUT', `invalid arguments for ${method}: ${parts.join('; ')}`);
}
