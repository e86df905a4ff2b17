/**
 * A room node's shell output stream (server/node-streams.ts, engine/hosts/remote-mirror.ts): at most this many
 * bytes are in flight unacknowledged. The room's copy of the shell holds the stream that far before its ring
 * would overwrite what a reader or a live view still reads (the copy's hold margin is HIGH), so the bytes still
 * arriving after a hold fit, and nothing is lost. 1 MiB keeps a loaded machine's round trip through the relay
 * and SSH off the throughput (at 256 KiB the stream waited on its acknowledgements; SSH's own channel window is
 * 2 MiB); the node keeps what is unacknowledged in its ring, holding its PTY for it, so a dropped link resends it.
 */
export const NODE_STREAM_HIGH = 1024 * 1024;
export const NODE_STREAM_LOW = 768 * 1024;

/**
 * The line protocol's version (api/line-door.ts, in the node's hello). 2: a shell's output comes as binary
 * frames (below) to a room that asks for them, instead of JSON lines of base64. A room refuses a node older
 * than this with the update to make on the host; a node still answers an older room in JSON lines.
 */
export const LINE_PROTOCOL = 2;
