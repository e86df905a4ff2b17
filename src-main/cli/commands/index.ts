import type { CeCommand } from '../command';
import { AGENT_COMMANDS } from './agents';
import { ANSWER_COMMAND } from './answer';
import { AUDIT_COMMANDS } from './audit';
import { GRAPH_COMMANDS } from './graphs';
import { HANDOFF_CANCEL_COMMAND } from './handoff-cancel';
import { HANDOFF_COMMANDS } from './handoffs';
import { HISTORY_COMMAND } from './history';
import { HOST_COMMANDS } from './hosts';
import { INIT_COMMAND } from './init';
import { LOGS_COMMAND } from './logs';
import { PARTICIPANT_COMMANDS } from './participants';
import { REVIEW_COMMANDS } from './review';
import { ROOM_COMMANDS } from './room';
import { RUN_COMMAND } from './run';
import { SCHEDULE_COMMANDS } from './schedules';
import { SHELL_ATTACH_COMMAND } from './shell-attach';
import { SHELL_COMMANDS } from './shells';
import { SPEND_COMMANDS } from './spend';
import { SUMMARY_COMMAND } from './summary';
import { UI_COMMANDS } from './ui';

/** Every `ce` command, in the order `ce --help` lists them; a feature adds its own here. */
export const CE_COMMANDS: CeCommand[] = [
  INIT_COMMAND,
  ...ROOM_COMMANDS,
  SUMMARY_COMMAND,
  ...PARTICIPANT_COMMANDS,
  ...UI_COMMANDS,
  ...SHELL_COMMANDS,
  SHELL_ATTACH_COMMAND,
  ...AGENT_COMMANDS,
  ...HOST_COMMANDS,
  ...SPEND_COMMANDS,
  ...HANDOFF_COMMANDS,
  ...REVIEW_COMMANDS,
  HISTORY_COMMAND,
  ANSWER_COMMAND,
  HANDOFF_CANCEL_COMMAND,
  ...GRAPH_COMMANDS,
  RUN_COMMAND,
  ...SCHEDULE_COMMANDS,
  LOGS_COMMAND,
  ...AUDIT_COMMANDS,
];
