/**
 * The room's refusals name what to call next in the agents' vocabulary (MCP tools: "tasks_list shows the graphs
 * you may see"). Said to a person at `ce`, each names the ce command that does the same instead. Tools with no
 * ce command of their own are left as they are.
 */
const CE_FOR_TOOL: Record<string, string> = {
  tasks_list: 'ce graphs',
  tasks_graph: 'ce graph ID',
  tasks_status: 'ce graph ID',
  tasks_cancel: 'ce graph-cancel ID',
  tasks_run: 'ce run',
  handoff_list: 'ce handoffs',
  handoff_get: 'ce handoff ID',
  handoff_events: 'ce handoff-events ID',
  handoff_answer_input: 'ce answer ID',
  handoff_approve: 'ce approve ID',
  handoff_reject: 'ce reject ID',
  handoff_cancel: 'ce handoff-cancel ID',
  shell_list: 'ce shells',
  participant_list: 'ce participant list',
  participant_activity: 'ce participant list',
  audit_list: 'ce audit',
  room_info: 'ce info',
};
const TOOL = new RegExp(`\\b(${Object.keys(CE_FOR_TOOL).join('|')})\\b`, 'g');

export function inCeTerms(message: string): string {
  return message.replace(TOOL, (tool) => `"${CE_FOR_TOOL[tool] ?? tool}"`);
}
