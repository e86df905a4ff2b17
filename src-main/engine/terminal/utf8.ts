import { StringDecoder } from 'node:string_decoder';

/**
 * The one way terminal and pipe bytes become text: a character split across chunks stays whole. (Its own file
 * so readers of logs do not load node-pty; the terminal module re-exports it.)
 */
export interface Utf8Decoder {
  write(bytes: Buffer): string;
  /** What is left at the end of the stream (an incomplete character becomes U+FFFD). */
  end(): string;
}

export function utf8Decoder(): Utf8Decoder {
  const decoder = new StringDecoder('utf8');
  return { write: (bytes) => decoder.write(bytes), end: () => decoder.end() };
}
