import { Validator, type OutputUnit, type SchemaDraft } from '@cfworker/json-schema';
import { RoomError } from './errors';
import type { InputRequest } from './handoff-dto';
import { compileAgentPattern, PatternError } from './safe-pattern';

/**
 * An input answer checked against the JSON Schema its request asked for, in words a person and an agent can
 * act on. One module for both sides: the room refuses an answer that fails it (handoff_answer_input, MCP
 * tasks/update), and the inbox's form runs the same check before it sends. The validator is
 * @cfworker/json-schema: a full JSON Schema validator (drafts 4 to 2020-12) that compiles nothing, so it runs
 * under the page's no-eval Content-Security-Policy as well as in the room.
 */
export interface AnswerProblem {
  /** The answer's field the problem is about, or null for the answer as a whole. */
  field: string | null;
  message: string;
}

type Schema = Record<string, unknown>;

const record = (v: unknown): Schema => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : {});

function draftOf(schema: Schema): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** A field's name as the form shows it: its title, else its key. */
function titleOf(schema: Schema, field: string): string {
  const title = record(record(schema.properties)[field]).title;
  return typeof title === 'string' && title.trim() !== '' ? title : field;
}

const shown = (v: unknown) => JSON.stringify(v);

/** A validator's exception in one line, without its internal base URI (the first sentence says it all). */
function firstSentence(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).split(/\.\s{2,}/)[0]?.replace(/\.$/, '').trim() ?? text;
}

/** What one keyword of a field's schema asks, said plainly. */
function plainly(keyword: string, p: Schema, value: unknown): string {
  switch (keyword) {
    case 'type':
      return `must be ${p.type === 'integer' ? 'a whole number' : p.type === 'number' ? 'a number' : p.type === 'boolean' ? 'true or false' : `of type ${shown(p.type)}`} (got ${shown(value)})`;
    case 'enum':
      return `must be one of ${(Array.isArray(p.enum) ? p.enum : []).map(shown).join(', ')} (got ${shown(value)})`;
    case 'const':
      return `must be ${shown(p.const)} (got ${shown(value)})`;
    case 'minimum':
      return `must be at least ${String(p.minimum)} (got ${shown(value)})`;
    case 'maximum':
      return `must be at most ${String(p.maximum)} (got ${shown(value)})`;
    case 'exclusiveMinimum':
      return `must be more than ${String(p.exclusiveMinimum)} (got ${shown(value)})`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.exclusiveMaximum)} (got ${shown(value)})`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)} (got ${shown(value)})`;
    case 'minLength':
      return `must be at least ${String(p.minLength)} characters (got ${typeof value === 'string' ? [...value].length : 0})`;
    case 'maxLength':
      return `must be at most ${String(p.maxLength)} characters (got ${typeof value === 'string' ? [...value].length : 0})`;
    case 'pattern':
      return `must match the pattern ${String(p.pattern)}`;
    case 'format':
      return `must be a valid ${String(p.format)} (got ${shown(value)})`;
    default:
      return `does not match the request's schema (${keyword})`;
  }
}

/** Keywords that only say an inner part failed: the inner failure is the one worth saying. */
const WRAPPERS = new Set(['properties', 'allOf', 'items', '$ref', 'unevaluatedProperties', 'patternProperties', 'additionalProperties']);

function fieldOf(unit: OutputUnit): string | null {
  const m = /^#\/([^/]+)/.exec(unit.instanceLocation);
  return m?.[1] ? m[1].replace(/~1/g, '/').replace(/~0/g, '~') : null;
}

/**
 * A field's `pattern` is matched here, not by the validator: in the room with RE2 (safe-pattern.ts, linear
 * time: a backtracking engine can be held for minutes by one agent's pattern), in a page natively (a pattern
 * can only slow the person's own tab). Answers whether `value` matches, or why the pattern cannot be used.
 */
function matches(source: string, value: string): boolean | string {
  try {
    return compileAgentPattern(source).find(value) !== null;
  } catch (error) {
    if (!(error instanceof PatternError) || !/only in the room process/.test(error.message)) return error instanceof Error ? error.message : String(error);
  }
  try {
    return new RegExp(source, 'u').test(value);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The schema with its fields' patterns taken out (matched by `matches`), and those patterns by field. */
function patternsApart(schema: Schema): { rest: Schema; patterns: [string, string][] } {
  const properties = record(schema.properties);
  const patterns: [string, string][] = [];
  const stripped: Schema = {};
  for (const [key, raw] of Object.entries(properties)) {
    const p = record(raw);
    if (typeof p.pattern === 'string') {
      patterns.push([key, p.pattern]);
      const { pattern: _pattern, ...others } = p;
      stripped[key] = others;
    } else stripped[key] = raw;
  }
  return { rest: schema.properties === undefined ? schema : { ...schema, properties: stripped }, patterns };
}

/** Where a schema holds a pattern other than on a field (a nested or a property-name pattern), if it does. */
function patternElsewhere(node: unknown, path: string, field: boolean): string | null {
  if (!node || typeof node !== 'object') return null;
  for (const [key, value] of Object.entries(node as Schema)) {
    if ((key === 'pattern' && !field) || key === 'patternProperties') return `${path}/${key}`;
    const inner = patternElsewhere(value, `${path}/${key}`, false);
    if (inner) return inner;
  }
  return null;
}

/**
 * Every way `content` fails `schema`: a required field missing, a field the schema does not have (when it
 * says additionalProperties: false), a value of the wrong type, outside its bounds or not one of its choices.
 * Empty when the answer is acceptable.
 */
export function answerProblems(schema: Schema, content: Record<string, unknown>): AnswerProblem[] {
  const problems: AnswerProblem[] = [];
  const properties = record(schema.properties);
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [];
  for (const key of required) {
    if (!Object.hasOwn(content, key)) problems.push({ field: key, message: `“${titleOf(schema, key)}” is required` });
  }
  if (schema.additionalProperties === false) {
    for (const key of Object.keys(content)) {
      if (!Object.hasOwn(properties, key)) problems.push({ field: key, message: `“${key}” is not a field of this request (its fields: ${Object.keys(properties).join(', ') || 'none'})` });
    }
  }
  const { rest, patterns } = patternsApart(schema);
  for (const [key, source] of patterns) {
    const value = content[key];
    if (typeof value !== 'string') continue;
    const ok = matches(source, value);
    if (ok === true) continue;
    problems.push({ field: key, message: ok === false ? `“${titleOf(schema, key)}” must match the pattern ${source}` : `“${titleOf(schema, key)}” has a pattern that cannot be used (${ok})` });
  }
  let units: OutputUnit[];
  try {
    units = new Validator(rest, draftOf(schema), false).validate(content).errors;
  } catch (error) {
    return [{ field: null, message: `the request's schema could not be read (${firstSentence(error)})` }];
  }
  const said = new Set(problems.map((p) => p.field));
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword) || unit.keyword === 'required') continue;
    const field = fieldOf(unit);
    if (field !== null && said.has(field)) continue;
    if (field === null) {
      problems.push({ field: null, message: unit.error });
      continue;
    }
    said.add(field);
    problems.push({ field, message: `“${titleOf(schema, field)}” ${plainly(unit.keyword, record(properties[field]), content[field])}` });
  }
  return problems;
}

/** The problems as one sentence, for an error message. */
export function describeAnswerProblems(problems: AnswerProblem[]): string {
  return problems.map((p) => p.message).join('; ');
}

/** Why `schema` cannot be used to check answers (a validator that throws on it), or null when it can. */
export function unusableSchema(schema: Schema): string | null {
  const elsewhere = Object.entries(record(schema.properties)).map(([key, p]) => patternElsewhere(p, `/properties/${key}`, true)).find(Boolean) ?? patternElsewhere({ ...schema, properties: {} }, '', false);
  if (elsewhere) return `a pattern is checked on a field only (properties.NAME.pattern), not at ${elsewhere}`;
  for (const [key, source] of patternsApart(schema).patterns) {
    const ok = matches(source, '');
    if (typeof ok === 'string') return `the pattern of "${key}" cannot be used: ${ok}`;
  }
  try {
    new Validator(schema, draftOf(schema), false).validate({});
    return null;
  } catch (error) {
    return firstSentence(error);
  }
}

/**
 * The room's check on arrival: every accepted answer fits its request's schema, or nothing is recorded and the
 * caller is told, per field, what to change (details carry the problems for a client to place by its fields).
 */
export function refuseAnswersThatDoNotFit(requests: Record<string, InputRequest>, answers: Record<string, { action: string; content?: Record<string, unknown> | undefined } | undefined>): void {
  for (const [key, answer] of Object.entries(answers)) {
    const asked = requests[key]?.params.requestedSchema;
    if (answer?.action !== 'accept' || !asked) continue;
    const problems = answerProblems(asked, answer.content ?? {});
    if (problems.length === 0) continue;
    throw new RoomError(
      'INVALID_INPUT',
      `the answer to input "${key}" does not match what was asked: ${describeAnswerProblems(problems)}. Nothing was recorded: answer again with content that fits its requestedSchema, or decline`,
      { key, problems },
    );
  }
}
