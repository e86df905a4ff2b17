import type { OptionSpec } from './args';
import type { CeCommand } from './command';

/** Options every `ce` command takes, parsed with the command's own. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  room: { type: 'string', value: 'FILE.md', help: 'the room (default: $COMMONROOM_ROOM, else your default room)' },
  json: { type: 'boolean', help: 'print the result as JSON (complete, also when piped)' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const left = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return [left, `${o.help ?? ''}${o.multiple ? ' (may repeat)' : ''}`] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`);
}

/** `ce CMD --help`: synopsis, what it does, its options, then examples. */
export function commandHelp(command: CeCommand): string {
  const lines = [`usage: ${command.synopsis[0] ?? `ce ${command.name}`}`, ...command.synopsis.slice(1).map((s) => `       ${s}`), '', command.summary];
  if (command.details?.length) lines.push('', ...command.details);
  lines.push('', 'options:', ...optionLines({ ...command.options, ...GLOBAL_OPTIONS }));
  if (command.examples?.length) lines.push('', 'examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** `ce --help`: every command with its one-line summary. */
export function overallHelp(commands: readonly CeCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'usage: ce <command> [options]   (ce <command> --help for its options and examples)',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'options every command takes:',
    ...optionLines({ ...GLOBAL_OPTIONS, version: { type: 'boolean', help: 'print the version' } }),
    '',
    'Every command goes through the running room process when one serves the room; else reads use the room',
    'file read-only and changes open the room for the length of the command. Only "commonroom serve" and',
    '"ce init" create a room.',
    '',
    'exit codes: 0 done, 1 refused or failed (the message says why), 2 a mistake on the command line.',
  ].join('\n');
}
