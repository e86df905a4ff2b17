import { UsageError } from './args';

/**
 * The form of one input request, read from its requested JSON Schema (an elicitation form: a flat object of
 * string, number, integer and boolean fields, some with an enum), and how typed text becomes those values.
 * Pure: `ce answer` uses it for flags and for prompts alike.
 */
export interface FormField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  title: string;
  description: string | null;
  choices: string[] | null;
  required: boolean;
  default: unknown;
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean']);

export function formFields(schema: Record<string, unknown>): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : []);
  return Object.entries(properties).map(([name, p]) => {
    const type = typeof p.type === 'string' && TYPES.has(p.type) ? (p.type as FormField['type']) : 'string';
    const choices = Array.isArray(p.enum) ? p.enum.map(String) : Array.isArray(p.oneOf) ? (p.oneOf as { const?: unknown }[]).map((o) => String(o.const)) : null;
    return {
      name,
      type,
      title: typeof p.title === 'string' ? p.title : name,
      description: typeof p.description === 'string' ? p.description : null,
      choices,
      required: required.has(name),
      default: p.default,
    };
  });
}

/** Typed text as the field's value, or a message saying what the field takes. */
export function coerce(field: FormField, text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const t = text.trim();
  if (field.choices && !field.choices.includes(t)) return { ok: false, message: `${field.name} is one of: ${field.choices.join(', ')}` };
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true|1)$/i.test(t)) return { ok: true, value: true };
      if (/^(n|no|false|0)$/i.test(t)) return { ok: true, value: false };
      return { ok: false, message: `${field.name} is yes or no` };
    case 'integer':
    case 'number': {
      const n = Number(t);
      if (t === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { ok: false, message: `${field.name} is ${field.type === 'integer' ? 'a whole number' : 'a number'}` };
      return { ok: true, value: n };
    }
    default:
      if (field.choices) return { ok: true, value: t };
      return { ok: true, value: text };
  }
}

/** `--set NAME=VALUE` flags as the answer's content, checked against the form (unknown and missing fields refused). */
export function contentFromFlags(fields: FormField[], sets: string[], key: string): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const set of sets) {
    const eq = set.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set ${set}: write it as FIELD=VALUE`);
    const name = set.slice(0, eq);
    const field = fields.find((f) => f.name === name);
    if (!field) throw new UsageError(`input "${key}" has no field ${JSON.stringify(name)}; its fields: ${fields.map((f) => f.name).join(', ') || '(none)'}`);
    const value = coerce(field, set.slice(eq + 1));
    if (!value.ok) throw new UsageError(`--set ${set}: ${value.message}`);
    content[name] = value.value;
  }
  const missing = fields.filter((f) => f.required && !(f.name in content));
  if (missing.length > 0) throw new UsageError(`input "${key}" needs ${missing.map((f) => `--set ${f.name}=…`).join(' ')}`);
  return content;
}

/** How a field is described next to its prompt: "Title (one of a, b) [default]". */
export function fieldPrompt(field: FormField): string {
  const hint = field.choices ? ` (one of ${field.choices.join(', ')})` : field.type === 'boolean' ? ' (yes/no)' : field.type === 'string' ? '' : ` (${field.type})`;
  const def = field.default !== undefined ? ` [${String(field.default)}]` : field.required ? '' : ' [optional]';
  return `${field.title}${hint}${def}: `;
}
