/**
 * The fields of an input request's requested schema (MCP elicitation forms are flat objects of primitive
 * properties): string, number/integer, boolean and enum. Anything else is offered as text, so a person can
 * still answer; the engine and the asking agent judge the content.
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
    const fallback = kind === 'boolean' ? false : kind === 'enum' ? (options[0] ?? '') : '';
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

/** The content to send, or a message naming the first field that is missing or not a number. */
export function formContent(fields: FormField[], values: Record<string, string | boolean>): { content: Record<string, unknown> } | { problem: string } {
  const content: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.key] ?? f.initial;
    if (f.kind === 'boolean') {
      content[f.key] = v === true;
      continue;
    }
    const text = String(v).trim();
    if (text === '') {
      if (f.required) return { problem: `“${f.title}” is required` };
      continue;
    }
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) return { problem: `“${f.title}” must be ${f.kind === 'integer' ? 'a whole number' : 'a number'}` };
      content[f.key] = n;
    } else {
      content[f.key] = text;
    }
  }
  return { content };
}
