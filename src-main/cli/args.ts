import { badPortMessage, parsePort } from '../common/port';

/** A small, strict argv parser: known flags only, every mistake a clear message. */
export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
}

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[], spec: Record<string, 'string' | 'boolean'>): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const kind = spec[name];
    if (kind === undefined) {
      const known = Object.keys(spec).map((k) => `--${k}`);
      throw new UsageError(`unknown option --${name}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`);
    }
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    flags[name] = value;
  }
  return { positional, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function portFlag(args: ParsedArgs, fallback: number): number {
  const raw = stringFlag(args, 'port');
  if (raw === undefined) return fallback;
  const port = parsePort(raw);
  if (port === null) throw new UsageError(badPortMessage('--port', raw));
  return port;
}
