import { answerProblems, type AnswerProblem } from '../../../../src-main/common/answer-check';

/**
 * The fields of an input request's requested schema (MCP elicitation forms are flat objects of primitive
 * properties): string, number/integer, boolean and enum. Anything else is offered as text, so a person can
 * still answer. The content is checked against the request's schema by the room's own check (answer-check.ts)
 * before it is sent; a choice starts empty unless the schema gives a default, so nothing is chosen for the person.
 */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

export interface FormField {
  key: string;
  kind: FieldKind;
  title: string;
  description: string | null;
  required: boolean;
  options: string[];
  initial: string | boolean;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function formFields(schema: Record<string, unknown>): FormField[] {
  const properties = record(schema.properties);
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [];
  return Object.entries(properties).map(([key, raw]) => {
    const p = record(raw);
    const options = Array.isArray(p.enum) ? p.enum.map(String) : [];
    const type = typeof p.type === 'string' ? p.type : 'string';
    const kind: FieldKind = options.length > 0 ? 'enum' : type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
    const fallback = kind === 'boolean' ? false : '';
    const initial = p.default === undefined ? fallback : kind === 'boolean' ? p.default === true : String(p.default);
    return {
      key,
      kind,
      title: typeof p.title === 'string' ? p.title : key,
      description: typeof p.description === 'string' ? p.description : null,
      required: required.includes(key),
      options,
      initial,
    };
  });
}

/** The content to send, or every problem with it, by field: missing, not a number, or not what the schema asks. */
export function formContent(schema: Record<string, unknown>, fields: FormField[], values: Record<string, string | boolean>): { content: Record<string, unknown> } | { problems: AnswerProblem[] } {
  const content: Record<string, unknown> = {};
  const problems: AnswerProblem[] = [];
  for (const f of fields) {
    const v = values[f.key] ?? f.initial;
    if (f.kind === 'boolean') {
      content[f.key] = v === true;
      continue;
    }
    const text = String(v).trim();
    if (text === '') continue; // a required field left empty is the schema's "required"
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) problems.push({ field: f.key, message: `“${f.title}” must be ${f.kind === 'integer' ? 'a whole number' : 'a number'}` });
      else content[f.key] = n;
    } else {
      content[f.key] = text;
    }
  }
  problems.push(...answerProblems(schema, content).filter((p) => !problems.some((q) => q.field !== null && q.field === p.field)));
  return problems.length > 0 ? { problems } : { content };
}
