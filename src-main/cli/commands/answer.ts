import readline from 'node:readline/promises';
import type { InputRequest } from '../../common/handoff-dto';
import { RoomError } from '../../common/errors';
import { listFlag, noExtra, UsageError, type ParsedArgs } from '../args';
import { coerce, contentFromFlags, fieldPrompt, formFields } from '../answer-form';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** Asks for one request's answer in the person's terminal, field by field, checking each value as typed. */
async function askInTerminal(key: string, request: InputRequest): Promise<Answer> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const ended = new Promise<never>((_, reject) => rl.once('close', () => reject(new UsageError('no answer given: the input ended'))));
  ended.catch(() => undefined);
  const ask = (q: string) => Promise.race([rl.question(q), ended]);
  try {
    process.stderr.write(`\n[${key}] ${request.params.message}\n`);
    for (;;) {
      const choice = (await ask('answer it (a), decline (d) or cancel (c)? [a] ')).trim().toLowerCase();
      if (choice === 'd' || choice === 'decline') return { action: 'decline' };
      if (choice === 'c' || choice === 'cancel') return { action: 'cancel' };
      if (choice === '' || choice === 'a' || choice === 'answer') break;
    }
    const content: Record<string, unknown> = {};
    for (const field of formFields(request.params.requestedSchema)) {
      if (field.description) process.stderr.write(`  ${field.description}\n`);
      for (;;) {
        const text = await ask(`  ${fieldPrompt(field)}`);
        if (text.trim() === '') {
          if (field.default !== undefined) content[field.name] = field.default;
          if (field.default !== undefined || !field.required) break;
          process.stderr.write(`  ${field.name} is required\n`);
          continue;
        }
        const value = coerce(field, text);
        if (value.ok) {
          content[field.name] = value.value;
          break;
        }
        process.stderr.write(`  ${value.message}\n`);
      }
    }
    return { action: 'accept', content };
  } finally {
    rl.close();
  }
}

function answerFromFlags(args: ParsedArgs, key: string, request: InputRequest): Answer | null {
  const sets = listFlag(args, 'set');
  const decline = Boolean(args.flags.decline);
  const cancel = Boolean(args.flags.cancel);
  if ([sets.length > 0, decline, cancel].filter(Boolean).length > 1) throw new UsageError('give one of --set, --decline or --cancel');
  if (decline) return { action: 'decline' };
  if (cancel) return { action: 'cancel' };
  if (sets.length === 0) return null;
  return { action: 'accept', content: contentFromFlags(formFields(request.params.requestedSchema), sets, key) };
}

export const ANSWER_COMMAND: CeCommand = {
  name: 'answer',
  synopsis: ['ce answer ID [KEY]', 'ce answer ID [KEY] --set FIELD=VALUE… | --decline | --cancel'],
  summary: 'answer the input a handoff asks for (shown by "ce handoff ID"): in a prompt, or from flags',
  options: {
    set: { type: 'string', multiple: true, value: 'FIELD=VALUE', help: "a field of the requested form (see its fields in the prompt or with --json)" },
    decline: { type: 'boolean', help: 'decline to answer (the assignee is told)' },
    cancel: { type: 'boolean', help: 'dismiss the request without an answer' },
  },
  details: [
    'An assignee asks with handoff_request_input; each request has a key, a message and a form (a JSON Schema).',
    'In a terminal, with no flags, ce asks each outstanding request field by field and checks the values as you',
    'type (numbers, yes/no, a list of choices). With flags it answers one request: name its KEY when there are',
    'several. Answered as the operator (the handoff\'s owner, or anyone with approve, may answer).',
  ],
  examples: ['ce answer h_0123', 'ce answer h_0123 deploy --set answer="ship it"', 'ce answer h_0123 target --set env=staging --set dryRun=no', 'ce answer h_0123 --decline'],
  async run(args, room) {
    const [, id, wanted] = args.positional;
    if (!id) throw new UsageError('ce answer ID: the handoff id is missing (see "ce handoffs")');
    noExtra(args, 3);
    const { handoff } = await readAs(room, 'handoff_get', { handoffId: id });
    const outstanding = Object.entries(handoff.task?.inputRequests ?? {});
    if (outstanding.length === 0) throw new RoomError('CONFLICT', `handoff ${id} asks for no input now (its task is ${handoff.task?.status ?? 'gone'})`);
    let chosen = outstanding;
    if (wanted !== undefined) {
      chosen = outstanding.filter(([key]) => key === wanted);
      if (chosen.length === 0) throw new UsageError(`handoff ${id} has no outstanding input "${wanted}"; it asks: ${outstanding.map(([k]) => k).join(', ')}`);
    }
    const answers: Record<string, Answer> = {};
    const [only] = chosen;
    const fromFlags = only && chosen.length === 1 ? answerFromFlags(args, only[0], only[1]) : null;
    if (fromFlags && only) answers[only[0]] = fromFlags;
    else if (chosen.length > 1 && (args.flags.set || args.flags.decline || args.flags.cancel)) {
      throw new UsageError(`handoff ${id} asks ${chosen.length} things (${chosen.map(([k]) => k).join(', ')}): name the KEY to answer with flags`);
    } else if (!process.stdin.isTTY) {
      throw new UsageError('no answer given: pass --set FIELD=VALUE (or --decline / --cancel), or run "ce answer" in a terminal to be asked');
    } else {
      for (const [key, request] of chosen) answers[key] = await askInTerminal(key, request);
    }
    const out = await callAsOperator(room, 'handoff_answer_input', { handoffId: id, answers });
    print(args, out, () => {
      const left = Object.keys(out.handoff.task?.inputRequests ?? {});
      const said = Object.entries(answers).map(([k, a]) => `${k}: ${a.action}`).join(', ');
      return `answered ${said} on ${id}; the task is ${out.handoff.task?.status ?? 'gone'}${left.length ? ` (still asking: ${left.join(', ')})` : ''}`;
    });
    return 0;
  },
};
