// The benchmarks, in the order `npm run bench` runs them.
import mcpCall from './mcp-call.js';
import shellRoundtrip from './shell-roundtrip.js';
import shellStream from './shell-stream.js';
import graph from './graph.js';
import handoffCycle from './handoff-cycle.js';
import fanout from './fanout.js';
import startup from './startup.js';
import ui from './ui.js';
import lockout from './lockout.js';
import answerBytes from './answer-bytes.js';
import manyShells from './many-shells.js';
import workspace from './workspace.js';
import handoffList from './handoff-list.js';
import taskStart from './task-start.js';
import remote from './remote.js';

export const BENCHMARKS = [mcpCall, shellRoundtrip, shellStream, graph, handoffCycle, fanout, startup, ui, lockout, answerBytes, manyShells, workspace, handoffList, taskStart, remote];
