import { DiffModeEnum, DiffView } from '@git-diff-view/react';
import '@git-diff-view/react/styles/diff-view-pure.css';
import { useEffect, useRef, useState } from 'react';
import type { EvidenceFile, EvidenceRun, HandoffView, WorkspaceView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';
import { onSchemeChange, systemScheme } from '../../shared/terminal-theme';

/** Files changed by more lines than this start collapsed (so do all files of a change of more than MANY_FILES). */
const LARGE_FILE_LINES = 400;
const MANY_FILES = 30;

const STATUS_LETTER: Record<EvidenceFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', copied: 'C', 'type-changed': 'T' };

/** The language highlight.js knows a file by, from its name (null: shown as plain text). */
function languageOf(file: string): string | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
  const known: Record<string, string> = { ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', json: 'json', md: 'markdown', py: 'python', rb: 'ruby', go: 'go', rs: 'rust', java: 'java', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp', css: 'css', scss: 'scss', html: 'xml', xml: 'xml', sh: 'bash', bash: 'bash', yml: 'yaml', yaml: 'yaml', toml: 'ini', sql: 'sql', php: 'php', kt: 'kotlin', swift: 'swift' };
  return known[ext] ?? null;
}

const fileAnchor = (i: number) => `diff-file-${i}`;

/** Every file of the captured change, page by page (handoff_evidence), with its patch. */
function useEvidenceFiles(handoffId: string, capturedAt: string | undefined): { files: EvidenceFile[] | null; error: string | null } {
  const { client } = useRoom();
  const [files, setFiles] = useState<EvidenceFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!capturedAt) return;
    let live = true;
    void (async () => {
      try {
        const all: EvidenceFile[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.call('handoff_evidence', { handoffId, limit: 200, ...(cursor ? { cursor } : {}) });
          all.push(...page.files);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && live);
        if (live) setFiles(all);
      } catch (e) {
        if (live) setError(describeError(e, 'could not read the change'));
      }
    })();
    return () => {
      live = false;
    };
  }, [client, handoffId, capturedAt]);
  return { files, error };
}

/** A failed stage of a run in the workspace: one click shows the end of its log. */
function FailedStage(props: { graphId: string; stageId: string; state: string }): React.JSX.Element {
  const { client } = useRoom();
  const [log, setLog] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  async function toggle(): Promise<void> {
    setOpen((o) => !o);
    if (log !== null) return;
    try {
      const r = await client.call('tasks_status', { graphId: props.graphId, stageId: props.stageId });
      const records = 'log' in r ? r.log.records : [];
      setLog(records.map((rec) => rec.text).join('') || '(its log is empty)');
    } catch (e) {
      setLog(describeError(e, 'could not read the log'));
    }
  }
  return (
    <li className="failed-stage">
      <button type="button" className="link" aria-expanded={open} onClick={() => void toggle()} data-testid="failed-stage">
        {props.stageId}
      </button>{' '}
      <span className="chip chip-failed">{props.state}</span>
      {open && <pre className="stage-log-tail" data-testid="failed-stage-log">{log ?? 'Reading the log…'}</pre>}
    </li>
  );
}

function Runs(props: { runs: EvidenceRun[] }): React.JSX.Element {
  if (props.runs.length === 0) return <p className="muted small">Nothing was tested here: the agent ran no checks (no graph) on this work.</p>;
  return (
    <ul className="review-runs" aria-label="Runs in the workspace">
      {props.runs.map((run) => (
        <li key={run.graphId} data-testid="review-run">
          <span className={`chip chip-${run.state}`}>{run.state}</span> <strong>{run.name ?? run.graphId}</strong> <code className="muted">{run.graphId}</code>
          {run.failed.length > 0 && (
            <ul>
              {run.failed.map((f) => (
                <FailedStage key={f.stageId} graphId={run.graphId} stageId={f.stageId} state={f.state} />
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

function WorkspaceLine(props: { w: WorkspaceView }): React.JSX.Element {
  const { w } = props;
  return (
    <p className="muted small workspace-line">
      <code>{w.branch}</code> from <code>{w.base}</code> at <code>{w.baseCommit.slice(0, 12)}</code> in <span className="truncate" title={w.repo}>{w.repo}</span> · workspace{' '}
      <strong data-testid="workspace-state">{w.state}</strong>
      {w.merge && (
        <>
          {' '}
          into <code>{w.merge.into}</code> as <code>{w.merge.commit.slice(0, 12)}</code>
          {w.merge.fastForward ? ' (fast-forward)' : ''} by {w.merge.by}
        </>
      )}
      {w.note && <> · {w.note}</>}
      {w.continues && (
        <span className="continues" data-testid="workspace-continues">
          {' '}
          · goes on from <code>{w.continues.handoffId}</code>, rejected{w.continues.reason ? `: ${w.continues.reason}` : ''}
        </span>
      )}
    </p>
  );
}

/**
 * Whether an element has come near the scrolled view (once true, stays true): a file's diff is drawn only then.
 * Drawing every file of a 5,000-line change at once took the page seconds; the ones on screen take a fraction.
 */
function useNearView(ref: React.RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || near) return;
    if (typeof IntersectionObserver === 'undefined') return setNear(true);
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: '800px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, near]);
  return near;
}

function FileDiff(props: { file: EvidenceFile; index: number; mode: 'unified' | 'split'; theme: 'light' | 'dark'; open: boolean; onToggle(): void }): React.JSX.Element {
  const { file: f } = props;
  const lines = (f.additions ?? 0) + (f.deletions ?? 0);
  const section = useRef<HTMLElement>(null);
  const near = useNearView(section);
  return (
    <section className="diff-file" id={fileAnchor(props.index)} data-testid="diff-file" data-path={f.path} ref={section}>
      <header>
        <button type="button" className="diff-file-toggle" aria-expanded={props.open} onClick={props.onToggle}>
          <span className={`file-status status-${f.status}`} title={f.status}>
            {STATUS_LETTER[f.status]}
          </span>
          <span className="truncate diff-path" title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
            {f.oldPath ? `${f.oldPath} → ` : ''}
            {f.path}
          </span>
          {f.binary ? <span className="muted small">binary</span> : <span className="counts small"><span className="add">+{f.additions}</span> <span className="del">−{f.deletions}</span></span>}
        </button>
      </header>
      {props.open &&
        (f.binary ? (
          <p className="muted small pad">A binary file: named here, not shown.</p>
        ) : f.patch === null ? (
          <p className="muted small pad">Its patch was not kept (the change's text passed the room's cap): {lines} lines changed.</p>
        ) : !near ? (
          <div className="diff-placeholder" style={{ height: `${Math.min(lines + 4, 2000) * 20}px` }} aria-hidden="true" />
        ) : (
          <>
            <DiffView
              data={{ oldFile: { fileName: f.oldPath ?? f.path, fileLang: languageOf(f.oldPath ?? f.path) }, newFile: { fileName: f.path, fileLang: languageOf(f.path) }, hunks: [f.patch] }}
              diffViewMode={props.mode === 'split' ? DiffModeEnum.Split : DiffModeEnum.Unified}
              diffViewTheme={props.theme}
              diffViewHighlight
              diffViewFontSize={12}
            />
            {f.cut && <p className="notice small">This file's patch was cut at the room's cap: the counts above are whole, the text is not.</p>}
          </>
        ))}
    </section>
  );
}

/**
 * The change a handoff's workspace holds, as a reviewer reads it: the file list with counts, each file's diff
 * (unified or split, highlighted; large ones collapsed), the commits, what was left uncommitted, and the runs
 * that tested it with their failed stages. n / p jump between files, ] / [ between hunks.
 */
export function WorkspaceReview(props: { handoff: HandoffView }): React.JSX.Element | null {
  const w = props.handoff.workspace;
  const evidence = w?.evidence ?? null;
  const { files, error } = useEvidenceFiles(props.handoff.id, evidence?.capturedAt);
  const [mode, setMode] = useState<'unified' | 'split'>('unified');
  const [theme, setTheme] = useState(systemScheme());
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const root = useRef<HTMLElement>(null);
  useEffect(() => onSchemeChange(setTheme), []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      const host = root.current;
      if (!host || !['n', 'p', ']', '['].includes(e.key)) return;
      const selector = e.key === 'n' || e.key === 'p' ? '.diff-file' : '.diff-file [data-state="hunk"]';
      const items = [...host.querySelectorAll<HTMLElement>(selector)];
      if (items.length === 0) return;
      const top = host.closest('.inbox-detail')?.getBoundingClientRect().top ?? 0;
      const forward = e.key === 'n' || e.key === ']';
      const at = items.findIndex((el) => el.getBoundingClientRect().top > top + 8);
      const next = forward ? items[at < 0 ? items.length - 1 : at] : items[Math.max(0, (at < 0 ? items.length : at) - 2)];
      next?.scrollIntoView({ block: 'start' });
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!w) return null;
  const isOpen = (i: number, f: EvidenceFile) => open[i] ?? ((files?.length ?? 0) <= MANY_FILES && (f.additions ?? 0) + (f.deletions ?? 0) <= LARGE_FILE_LINES && !f.cut);
  return (
    <section className="workspace-review" ref={root} aria-label="Change">
      <header className="review-head">
        <h3>Change</h3>
        {evidence && (
          <span className="small" data-testid="change-summary">
            {evidence.files} file{evidence.files === 1 ? '' : 's'} <span className="add">+{evidence.additions}</span> <span className="del">−{evidence.deletions}</span> · {evidence.commitCount} commit{evidence.commitCount === 1 ? '' : 's'}
          </span>
        )}
        <span className="seg" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={mode === 'unified'} onClick={() => setMode('unified')}>
            Unified
          </button>
          <button type="button" aria-pressed={mode === 'split'} onClick={() => setMode('split')}>
            Split
          </button>
        </span>
      </header>
      <WorkspaceLine w={w} />
      {!evidence ? (
        <p className="muted">{w.state === 'planned' ? 'The workspace is made when the handoff is accepted.' : 'The change is captured when the work is completed.'}</p>
      ) : (
        <>
          {evidence.uncommittedCount > 0 && (
            <p className="notice" data-testid="uncommitted">
              {evidence.uncommittedCount} file{evidence.uncommittedCount === 1 ? ' was' : 's were'} left uncommitted in the worktree: not part of this change, and not merged by approving it ({evidence.uncommitted.slice(0, 5).map((u) => u.path).join(', ')}
              {evidence.uncommittedCount > 5 ? ', …' : ''}).
            </p>
          )}
          <h4>Tested</h4>
          <Runs runs={evidence.runs} />
          {evidence.commits.length > 0 && (
            <details className="review-commits">
              <summary>
                {evidence.commitCount} commit{evidence.commitCount === 1 ? '' : 's'}
              </summary>
              <ol>
                {evidence.commits.map((c) => (
                  <li key={c.sha}>
                    <code>{c.sha.slice(0, 10)}</code> {c.subject} <span className="muted small">{c.author}, {new Date(c.at).toLocaleString()}</span>
                  </li>
                ))}
              </ol>
            </details>
          )}
          {error && <p className="form-problem">{error}</p>}
          {!files ? (
            !error && <p className="muted">Reading the change…</p>
          ) : files.length === 0 ? (
            <p className="muted">No file changed on the branch.</p>
          ) : (
            <>
              <ol className="file-list" aria-label="Files changed">
                {files.map((f, i) => (
                  <li key={`${i}-${f.path}`}>
                    <a
                      href={`#${fileAnchor(i)}`}
                      onClick={(e) => {
                        e.preventDefault();
                        setOpen((o) => ({ ...o, [i]: true }));
                        requestAnimationFrame(() => document.getElementById(fileAnchor(i))?.scrollIntoView({ block: 'start' }));
                      }}
                    >
                      <span className={`file-status status-${f.status}`}>{STATUS_LETTER[f.status]}</span> <span className="truncate">{f.path}</span>
                    </a>
                    {f.binary ? <span className="muted small">binary</span> : <span className="counts small"><span className="add">+{f.additions}</span> <span className="del">−{f.deletions}</span></span>}
                  </li>
                ))}
              </ol>
              {files.map((f, i) => (
                <FileDiff key={`${i}-${f.path}`} file={f} index={i} mode={mode} theme={theme} open={isOpen(i, f)} onToggle={() => setOpen((o) => ({ ...o, [i]: !isOpen(i, f) }))} />
              ))}
              {evidence.patchesCut && <p className="notice small">Some patches were cut at the room's cap (per file and in total): their counts are whole.</p>}
            </>
          )}
        </>
      )}
      <p className="muted small keys">
        <kbd>n</kbd>/<kbd>p</kbd> next/previous file · <kbd>]</kbd>/<kbd>[</kbd> next/previous hunk
      </p>
    </section>
  );
}
