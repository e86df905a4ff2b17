import { parseArgs as parseNodeArgs } from 'node:util';
import { badPortMessage, parsePort } from '../common/port';

/**
 * The CLIs' argv parser: node:util parseArgs (strict: known options only), with its errors rewritten as
 * messages a person can act on. Positionals keep their order; `--` ends the options.
 */
export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true | string[]>;
}

/** One option a command takes: its kind, an optional one-letter alias, and the line `--help` shows. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** May be given more than once (the values are kept in order). */
  multiple?: boolean;
  /** The value's placeholder in help, e.g. TEXT or FILE.md. */
  value?: string;
  help?: string;
}

export type OptionsSpec = Record<string, 'string' | 'boolean' | OptionSpec>;

export class UsageError extends Error {}

const optionName = (message: string): string => /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'an option';

export function parseArgs(argv: readonly string[], spec: OptionsSpec): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, raw] of Object.entries(spec)) {
    const o = typeof raw === 'string' ? { type: raw } : raw;
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseNodeArgs>;
  try {
    parsed = parseNodeArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    const name = optionName(message);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const known = Object.keys(spec).map((k) => `--${k}`);
      throw new UsageError(`unknown option ${name}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      if (/does not take an argument/.test(message)) throw new UsageError(`${name} takes no value`);
      throw new UsageError(`${name} needs a value`);
    }
    throw new UsageError(message.split('\n')[0] ?? message);
  }
  const flags: ParsedArgs['flags'] = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined || value === false) continue;
    flags[name] = Array.isArray(value) ? value.map(String) : value === true ? true : String(value);
  }
  return { positional: parsed.positionals, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  if (Array.isArray(v)) return v[v.length - 1];
  return typeof v === 'string' ? v : undefined;
}

/** Every value of an option that may repeat. */
export function listFlag(args: ParsedArgs, name: string): string[] {
  const v = args.flags[name];
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? [v] : [];
}

export function portFlag(args: ParsedArgs, fallback: number): number {
  const raw = stringFlag(args, 'port');
  if (raw === undefined) return fallback;
  const port = parsePort(raw);
  if (port === null) throw new UsageError(badPortMessage('--port', raw));
  return port;
}

/** No positional beyond the first `count` (the command word included). */
export function noExtra(args: ParsedArgs, count: number): void {
  const extra = args.positional[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
}
