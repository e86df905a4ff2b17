import { useState } from 'react';
import type { InputRequest } from '../../../../src-main/common/handoff-dto';
import { formContent, formFields } from './schema-form';

type Action = 'accept' | 'decline' | 'cancel';

/** One input request as a form generated from its requested schema; accept sends the content, decline/cancel none. */
export function InputRequestForm(props: {
  requestKey: string;
  request: InputRequest;
  onAnswer(key: string, action: Action, content?: Record<string, unknown>): Promise<void>;
}): React.JSX.Element {
  const fields = formFields(props.request.params.requestedSchema);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function answer(action: Action): Promise<void> {
    let content: Record<string, unknown> | undefined;
    if (action === 'accept') {
      const built = formContent(fields, values);
      if ('problem' in built) {
        setProblem(built.problem);
        return;
      }
      content = built.content;
    }
    setProblem(null);
    setBusy(true);
    try {
      await props.onAnswer(props.requestKey, action, content);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="input-form"
      data-request-key={props.requestKey}
      onSubmit={(e) => {
        e.preventDefault();
        void answer('accept');
      }}
    >
      <p className="input-message">{props.request.params.message}</p>
      {fields.map((f) => {
        const id = `in-${props.requestKey}-${f.key}`;
        const value = values[f.key] ?? f.initial;
        const set = (v: string | boolean) => setValues((s) => ({ ...s, [f.key]: v }));
        return (
          <div className="field" key={f.key}>
            {f.kind === 'boolean' ? (
              <label className="check">
                <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {f.title}
              </label>
            ) : (
              <label htmlFor={id}>
                {f.title}
                {f.required && <span className="req"> *</span>}
              </label>
            )}
            {f.kind === 'enum' && (
              <select id={id} value={String(value)} onChange={(e) => set(e.target.value)}>
                {f.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            )}
            {(f.kind === 'string' || f.kind === 'number' || f.kind === 'integer') && (
              <input id={id} type={f.kind === 'string' ? 'text' : 'number'} value={String(value)} onChange={(e) => set(e.target.value)} />
            )}
            {f.description && <small className="muted">{f.description}</small>}
          </div>
        );
      })}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
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
