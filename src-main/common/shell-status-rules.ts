import { CLIENTS, type ShellStatusRules } from './clients/index';

/**
 * How to read each agent CLI's screen when its terminal goes quiet: lines that mean it asks the person
 * (`waiting`: a permission, a choice, a sign-in) and lines that mean it is still at work though nothing moved
 * (`working`: its own "esc to interrupt" status line). Small data, one entry per client (in its file under
 * clients/); each entry is tested
 * on screens captured from the real CLI (test/engine/shells/fixtures/screens/). Signals the terminal itself carries
 * (a bell, an OSC 9 or 777 notification) come first and need no rule.
 */
export type { ShellStatusRules } from './clients/index';

/** Each client's rules (clients/<id>.ts), by client id; `default` for a terminal with no client. */
export const SHELL_STATUS_RULES: Record<string, ShellStatusRules> = {
  default: { waiting: [] },
  ...Object.fromEntries(CLIENTS.flatMap((c) => ('screen' in c ? [[c.id, c.screen]] : []))),
};
