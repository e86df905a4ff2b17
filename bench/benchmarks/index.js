// The benchmarks, in the order `npm run bench` runs them.
import mcpCall from './mcp-call.js';
import shellRoundtrip from './shell-roundtrip.js';
import shellStream from './shell-stream.js';
import graph from './graph.js';

export const BENCHMARKS = [mcpCall, shellRoundtrip, shellStream, graph];
