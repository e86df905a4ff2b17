import { useEffect, useRef, useState } from 'react';
import type { TerminalSession } from './terminal-session';

/** Find in the terminal's scrollback: Enter for the next match, Shift+Enter for the previous, Escape to close. */
export function SearchBar({ session, onClose }: { session: TerminalSession; onClose(): void }): React.JSX.Element {
  const [text, setText] = useState('');
  const [missing, setMissing] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    return () => session.clearSearch();
  }, [session]);

  const find = (backwards: boolean) => setMissing(text !== '' && !(backwards ? session.findPrevious(text) : session.findNext(text)));
  const close = () => {
    onClose();
    session.focus();
  };
  return (
    <div className="search-bar" role="search">
      <input
        ref={input}
        type="search"
        value={text}
        placeholder="Find in scrollback"
        aria-label="Find in scrollback"
        aria-invalid={missing}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(e.shiftKey);
          if (e.key === 'Escape') close();
        }}
      />
      <button type="button" onClick={() => find(true)} title="Previous match (Shift+Enter)">
        ↑
      </button>
      <button type="button" onClick={() => find(false)} title="Next match (Enter)">
        ↓
      </button>
      {missing && <span className="search-missing">no match</span>}
      <button type="button" className="link-button" onClick={close}>
        Done
      </button>
    </div>
  );
}
