import { useRef, useState } from 'react';
import type { AnswerProblem } from '../../../../src-main/common/answer-check';
import type { InputRequest } from '../../../../src-main/common/handoff-dto';
import { formContent, formFields, type FormField } from './schema-form';

type Action = 'accept' | 'decline' | 'cancel';

/** One field of the form, its problem (if any) said under it and tied to it for screen readers. */
function Field(props: { id: string; field: FormField; value: string | boolean; problem: string | null; set(v: string | boolean): void }): React.JSX.Element {
  const { id, field: f, value, problem, set } = props;
  const describedBy = [problem ? `${id}-problem` : null, f.description ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy, 'aria-required': f.required || undefined } as const;
  return (
    <div className={`field ${problem ? 'invalid' : ''}`} data-field={f.key}>
      {f.kind === 'boolean' ? (
        <label className="check">
          <input {...common} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {f.title}
        </label>
      ) : (
        <label htmlFor={id}>
          {f.title}
          {f.required && <span className="req"> (required)</span>}
        </label>
      )}
      {f.kind === 'enum' && (
        <select {...common} value={String(value)} onChange={(e) => set(e.target.value)}>
          <option value="">{f.required ? 'Choose one…' : '(none)'}</option>
          {f.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      )}
      {(f.kind === 'string' || f.kind === 'number' || f.kind === 'integer') && (
        <input {...common} type={f.kind === 'string' ? 'text' : 'number'} value={String(value)} onChange={(e) => set(e.target.value)} />
      )}
      {f.description && (
        <small className="muted" id={`${id}-hint`}>
          {f.description}
        </small>
      )}
      {problem && (
        <small className="field-problem" id={`${id}-problem`}>
          {problem}
        </small>
      )}
    </div>
  );
}

/**
 * One input request as a form generated from its requested schema; accept sends the content, decline/cancel
 * none. The content is checked with the room's own check first (an answer it would refuse is refused here,
 * by field); should the room still refuse it, its words are shown here. `onAnswer` answers a problem or null.
 */
export function InputRequestForm(props: {
  requestKey: string;
  request: InputRequest;
  onAnswer(key: string, action: Action, content?: Record<string, unknown>): Promise<string | null>;
}): React.JSX.Element {
  const schema = props.request.params.requestedSchema;
  const fields = formFields(schema);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [problems, setProblems] = useState<AnswerProblem[]>([]);
  const [refused, setRefused] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const idOf = (key: string) => `in-${props.requestKey}-${key}`;

  async function answer(action: Action): Promise<void> {
    let content: Record<string, unknown> | undefined;
    if (action === 'accept') {
      const built = formContent(schema, fields, values);
      if ('problems' in built) {
        setProblems(built.problems);
        setRefused(null);
        const first = built.problems.find((p) => p.field !== null);
        if (first?.field) form.current?.querySelector<HTMLElement>(`#${CSS.escape(idOf(first.field))}`)?.focus();
        return;
      }
      content = built.content;
    }
    setProblems([]);
    setBusy(true);
    try {
      setRefused(await props.onAnswer(props.requestKey, action, content));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      ref={form}
      className="input-form"
      data-request-key={props.requestKey}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void answer('accept');
      }}
    >
      <p className="input-message">{props.request.params.message}</p>
      {fields.map((f) => (
        <Field
          key={f.key}
          id={idOf(f.key)}
          field={f}
          value={values[f.key] ?? f.initial}
          problem={problems.find((p) => p.field === f.key)?.message ?? null}
          set={(v) => setValues((s) => ({ ...s, [f.key]: v }))}
        />
      ))}
      {(problems.length > 0 || refused) && (
        <div className="form-problem" role="alert" data-testid="answer-problem">
          {problems.length > 0 ? `Not sent: ${problems.map((p) => p.message).join('; ')}.` : refused}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Send answer
        </button>
        <button type="button" disabled={busy} onClick={() => void answer('decline')}>
          Decline
        </button>
        <button type="button" disabled={busy} onClick={() => void answer('cancel')}>
          Cancel request
        </button>
      </div>
    </form>
  );
}
