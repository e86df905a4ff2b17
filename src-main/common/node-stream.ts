/**
 * A room node's shell output stream (server/node-streams.ts, engine/hosts/remote-mirror.ts): at most this many
 * bytes are in flight unacknowledged. The room's copy of the shell holds the stream that far before its ring
 * would overwrite what a reader still reads (ShellViewers.holdMargin), so the bytes still arriving after a hold
 * fit, and nothing is lost.
 */
export const NODE_STREAM_HIGH = 256 * 1024;
export const NODE_STREAM_LOW = 128 * 1024;
