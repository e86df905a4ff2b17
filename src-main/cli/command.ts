import type { OptionSpec, ParsedArgs } from './args';
import { visible } from './visible-text';

/**
 * One `ce` command, in its own file under cli/commands/, listed in ce.ts. `--help` is built from these
 * fields (help.ts), so what a command accepts and what it documents cannot drift apart.
 */
export interface CeCommand {
  /** The word that selects it, e.g. "participant" or "graphs". */
  name: string;
  /** Its forms, without options every command takes (`ce approve ID [--reason TEXT]`). */
  synopsis: string[];
  /** One line for `ce --help`. */
  summary: string;
  /** Options of this command only (--room, --json and --help are everyone's). */
  options?: Record<string, OptionSpec>;
  /** What `--help` says beyond the synopsis: exit codes, what happens when no room process runs… */
  details?: string[];
  /** Command lines a person can copy. */
  examples?: string[];
  run(args: ParsedArgs, room: string | undefined): Promise<number>;
}

/** A command's answer: JSON with --json, else its human form with agent text made visible (visible-text.ts). */
export function print(args: ParsedArgs, value: unknown, human: () => string): void {
  if (args.flags.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${visible(human())}\n`);
}

/** Agent text on one line of at most `max` characters (runs of whitespace become one space; cut with "…"). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
