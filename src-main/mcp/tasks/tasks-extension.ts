import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, type ServerContext } from '@modelcontextprotocol/server';

/** The 2026-07-28 Tasks extension: declared per request in the envelope's client capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export function declaresTasksExtension(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const ext = caps?.extensions?.[TASKS_EXTENSION];
  return ext !== null && typeof ext === 'object';
}

export function missingTasksExtension(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, 'Missing required client capability');
}

