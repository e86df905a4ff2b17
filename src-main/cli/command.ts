import type { ParsedArgs } from './args';

/** One `ce` command: a feature adds its commands in cli/commands/<feature>.ts and lists them in ce.ts. */
export interface CeCommand {
  /** The words that select it, e.g. "participant" or "graphs". */
  name: string;
  /** One or more usage lines for `ce help`. */
  usage: string[];
  run(args: ParsedArgs, room: string | undefined): Promise<number>;
}

export function print(args: ParsedArgs, value: unknown, human: () => string): void {
  console.log(args.flags.json ? JSON.stringify(value, null, 2) : human());
}
