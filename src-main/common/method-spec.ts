import type { z } from 'zod';
import type { Capability } from './capabilities';

/** One entry of the contract: what a method takes, who may call it, and whether agents see it as a tool. */
export interface MethodSpec<I extends z.ZodType = z.ZodType> {
  description: string;
  /** The capability a caller needs. */
  capability: Capability;
  /** The input's schema, built on first use (`lazily`): most methods are never called in a given run. */
  input: () => I;
  /** Offered to agents as an MCP tool. */
  mcpTool: boolean;
  /**
   * The method changes nothing: an engine opened read-only over the room file (the CLI while no room process
   * runs) serves it, with the same capability and input checks; it refuses every other method.
   */
  readOnly?: true;
  /**
   * Not kept in the audit log: a call a machine makes every few seconds (the OTLP door's spend_record, per agent
   * run), which would push the people's and agents' own calls out of the audit ring. Its effect is in its table.
   */
  unaudited?: true;
  /**
   * The method creates a task (a graph run, a handoff's execution): MCP clients that speak Tasks may get the
   * task back instead of the ordinary result. `taskIdOf` finds the task id in the method's output.
   */
  task?: { support: 'optional' | 'required'; taskIdOf: (output: unknown) => string };
}
