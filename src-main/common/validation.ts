import type { z } from 'zod';
import { RoomError } from './errors';

type Issue = z.core.$ZodIssue;

/** Turns a schema failure into one line a person can act on. */
export function describeInvalidInput(method: string, error: z.ZodError): RoomError {
  const parts = error.issues.slice(0, 5).map((issue) => describeIssue(issue, []));
  return new RoomError('INVALID_INPUT', `invalid arguments for ${method}: ${parts.join('; ')}`);
}

/**
 * One issue with where it is. A union that failed says, for each form it accepts, why the value is not that
 * form (not zod's bare "Invalid input"), so the caller sees which form it meant and what to fix.
 */
function describeIssue(issue: Issue, base: PropertyKey[]): string {
  const path = [...base, ...issue.path];
  const where = path.length > 0 ? path.map(String).join('.') : 'arguments';
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const forms = issue.errors.slice(0, 4).map((branch, i) => {
      const why = branch.slice(0, 2).map((inner) => describeIssue(inner, path)).join(', ');
      return `as ${formName(branch, i)}: ${why}`;
    });
    return `${where}: matches none of the ${issue.errors.length} accepted forms (${forms.join(' | ')})`;
  }
  return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** A name for one branch of a union, from what it asked for: `{key}` for an object form whose key is missing or wrong, `a string`… */
function formName(branch: readonly Issue[], index: number): string {
  const field = branch.find((i) => i.code === 'invalid_type' && i.path.length === 1);
  if (field) return `{${String(field.path[0])}}`;
  const root = branch.find((i) => i.code === 'invalid_type' && i.path.length === 0);
  if (root && root.code === 'invalid_type') return `${/^[aeiou]/.test(root.expected) ? 'an' : 'a'} ${root.expected}`;
  return `form ${index + 1}`;
}
