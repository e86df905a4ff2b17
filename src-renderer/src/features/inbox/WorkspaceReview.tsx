import { DiffModeEnum, DiffView, SplitSide } from '@git-diff-view/react';
import '@git-diff-view/react/styles/diff-view-pure.css';
import './review.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { EvidenceFile, HandoffView, LineComment, MergePreview } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';
import { onSchemeChange, systemScheme } from '../../shared/terminal-theme';
import { CommentForm, CommentNotes, notesOf, SentComments, type LineNotes } from './review-comments';
import { FileTree, PlainPatch, STATUS_LETTER, fileAnchor, useViewed } from './review-files';
import { Runs, WorkspaceLine } from './review-parts';
import { PreviewSummary } from './review-preview';
import { useReviewKeys } from './review-keys';

/** Files changed by more lines than this start collapsed (so do all files of a change of more than MANY_FILES). */
const LARGE_FILE_LINES = 400;
const MANY_FILES = 30;

/** The language highlight.js knows a file by, from its name (null: shown as plain text). */
function languageOf(file: string): string | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
  const known: Record<string, string> = { ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', json: 'json', md: 'markdown', py: 'python', rb: 'ruby', go: 'go', rs: 'rust', java: 'java', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp', css: 'css', scss: 'scss', html: 'xml', xml: 'xml', sh: 'bash', bash: 'bash', yml: 'yaml', yaml: 'yaml', toml: 'ini', sql: 'sql', php: 'php', kt: 'kotlin', swift: 'swift' };
  return known[ext] ?? null;
}

/** Every file of the captured change, page by page (handoff_evidence), or the change since the last review. */
function useChangeFiles(handoffId: string, capturedAt: string | undefined, since: boolean): { files: EvidenceFile[] | null; error: string | null; range: { from: string; to: string } | null } {
  const { client } = useRoom();
  const [state, setState] = useState<{ files: EvidenceFile[] | null; error: string | null; range: { from: string; to: string } | null }>({ files: null, error: null, range: null });
  useEffect(() => {
    if (!capturedAt) return;
    let live = true;
    setState({ files: null, error: null, range: null });
    void (async () => {
      try {
        if (since) {
          const r = await client.call('handoff_since_review', { handoffId });
          if (live) setState({ files: r.files, error: null, range: r.from && r.to ? { from: r.from, to: r.to } : null });
          return;
        }
        const all: EvidenceFile[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.call('handoff_evidence', { handoffId, limit: 200, ...(cursor ? { cursor } : {}) });
          all.push(...page.files);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && live);
        if (live) setState({ files: all, error: null, range: null });
      } catch (e) {
        if (live) setState({ files: null, error: describeError(e, 'could not read the change'), range: null });
      }
    })();
    return () => {
      live = false;
    };
  }, [client, handoffId, capturedAt, since]);
  return state;
}

/** Whether an element has come near the scrolled view (once true, stays true): its highlighted diff is drawn only then. */
function useNearView(ref: React.RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || near) return;
    if (typeof IntersectionObserver === 'undefined') return setNear(true);
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: '1200px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, near]);
  return near;
}

/**
 * The file's text before and after (at the base, or the commit reviewed last time, and at the reviewed commit),
 * read once it comes near: with them the diff view offers the lines around each hunk. Undefined while reading;
 * null when either side could not be read (the diff is shown without them).
 */
function useFileTexts(handoffId: string, f: EvidenceFile, from: 'base' | 'reviewed', wanted: boolean): { old: string; new: string } | null | undefined {
  const { client } = useRoom();
  const [texts, setTexts] = useState<{ old: string; new: string } | null | undefined>(undefined);
  useEffect(() => {
    if (!wanted || texts !== undefined) return;
    let live = true;
    const read = (path: string, at: 'base' | 'head' | 'reviewed', absent: boolean) =>
      absent ? Promise.resolve('') : client.call('handoff_file', { handoffId, path, at }).then((r) => r.content);
    void Promise.all([read(f.oldPath ?? f.path, from, f.status === 'added'), read(f.path, 'head', f.status === 'deleted')]).then(
      ([before, after]) => live && setTexts(before !== null && after !== null ? { old: before, new: after } : null),
      () => live && setTexts(null),
    );
    return () => {
      live = false;
    };
  }, [client, handoffId, f, from, wanted, texts]);
  return wanted ? texts : null;
}

interface FileDiffProps {
  handoffId: string;
  /** What the old side is: the base commit (the whole change) or the commit reviewed last time. */
  from: 'base' | 'reviewed';
  file: EvidenceFile;
  index: number;
  mode: 'unified' | 'split';
  theme: 'light' | 'dark';
  open: boolean;
  onToggle(): void;
  viewed: boolean;
  onViewed(): void;
  /** The person's comments on this file; null: comments are not taken here (no decision waits). */
  comments: LineComment[] | null;
  onComment(c: LineComment): void;
  onUncomment(c: LineComment): void;
}

function FileDiff(props: FileDiffProps): React.JSX.Element {
  const { file: f } = props;
  const lines = (f.additions ?? 0) + (f.deletions ?? 0);
  const section = useRef<HTMLElement>(null);
  const near = useNearView(section);
  const extend = useMemo(() => notesOf(props.comments ?? [], f.path), [props.comments, f.path]);
  const texts = useFileTexts(props.handoffId, f, props.from, near && props.open && !f.binary && !f.cut && f.patch !== null);
  return (
    <section className={`diff-file${props.viewed ? ' is-viewed' : ''}`} id={fileAnchor(props.index)} data-testid="diff-file" data-path={f.path} ref={section}>
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
        <label className="viewed-mark small">
          <input type="checkbox" checked={props.viewed} onChange={props.onViewed} data-testid="file-viewed" /> Viewed
        </label>
      </header>
      {props.open &&
        (f.binary ? (
          <p className="muted small pad">A binary file: named here, not shown.</p>
        ) : f.patch === null ? (
          <p className="muted small pad">Its patch was not kept (the change's text passed the room's cap): {lines} lines changed.</p>
        ) : !near || texts === undefined ? (
          <PlainPatch patch={f.patch} />
        ) : (
          <>
            <DiffView<LineNotes>
              data={{
                oldFile: { fileName: f.oldPath ?? f.path, fileLang: languageOf(f.oldPath ?? f.path), ...(texts ? { content: texts.old } : {}) },
                newFile: { fileName: f.path, fileLang: languageOf(f.path), ...(texts ? { content: texts.new } : {}) },
                hunks: [f.patch],
              }}
              diffViewMode={props.mode === 'split' ? DiffModeEnum.Split : DiffModeEnum.Unified}
              diffViewTheme={props.theme}
              diffViewHighlight
              diffViewFontSize={12}
              diffViewAddWidget={props.comments !== null}
              extendData={extend}
              renderWidgetLine={({ side, lineNumber, onClose }) => (
                <CommentForm
                  where={`${f.path}:${lineNumber}${side === SplitSide.old ? ' (old)' : ''}`}
                  onClose={onClose}
                  onSave={(text) => props.onComment({ path: f.path, line: lineNumber, ...(side === SplitSide.old ? { side: 'old' as const } : {}), text })}
                />
              )}
              renderExtendLine={({ data }) => <CommentNotes notes={data} onRemove={props.comments ? props.onUncomment : undefined} />}
            />
            {f.cut && <p className="notice small">This file's patch was cut at the room's cap: the counts above are whole, the text is not.</p>}
          </>
        ))}
    </section>
  );
}

/**
 * The change a handoff's workspace holds, as a reviewer reads a pull request: a sticky file tree with per-file
 * viewed marks, each file's diff (unified or split, highlighted; large ones collapsed; drawn as plain text until
 * it comes near, never a blank band), comments on lines (sent with "Request changes"), the commits, what was left
 * uncommitted, the runs that tested it, and for a follow-up, what changed since the last review. Keys: n / p
 * files, ] / [ hunks, v viewed (docs/keyboard.md).
 */
export function WorkspaceReview(props: { handoff: HandoffView; preview?: MergePreview | null; comments?: LineComment[] | null; onComments?(c: LineComment[]): void }): React.JSX.Element | null {
  const { client } = useRoom();
  const w = props.handoff.workspace;
  const evidence = w?.evidence ?? null;
  const sinceAvailable = Boolean(w?.continues?.reviewedHead && evidence);
  const [since, setSince] = useState(sinceAvailable);
  useEffect(() => setSince(sinceAvailable), [sinceAvailable, props.handoff.id]);
  const { files, error, range } = useChangeFiles(props.handoff.id, evidence?.capturedAt, since && sinceAvailable);
  const [mode, setMode] = useState<'unified' | 'split'>('unified');
  const [theme, setTheme] = useState(systemScheme());
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const { viewed, toggle } = useViewed(props.handoff.id, evidence?.head, client.identity?.operator ?? 'person');
  const root = useRef<HTMLElement>(null);
  useEffect(() => onSchemeChange(setTheme), []);
  useEffect(() => setOpen({}), [since]);
  const current = useReviewKeys(root, toggle);
  const comments = props.comments ?? null;
  const perFile = useMemo(() => (comments ?? []).reduce<Record<string, number>>((m, c) => ({ ...m, [c.path]: (m[c.path] ?? 0) + 1 }), {}), [comments]);

  if (!w) return null;
  const isOpen = (i: number, f: EvidenceFile) => open[i] ?? (!viewed.has(f.path) && (files?.length ?? 0) <= MANY_FILES && (f.additions ?? 0) + (f.deletions ?? 0) <= LARGE_FILE_LINES && !f.cut);
  const openFile = (i: number) => {
    setOpen((o) => ({ ...o, [i]: true }));
    requestAnimationFrame(() => document.getElementById(fileAnchor(i))?.scrollIntoView({ block: 'start' }));
  };
  const decision = props.handoff.decision;
  return (
    <section className="workspace-review" ref={root} aria-label="Change">
      <header className="review-head">
        <h3>Change</h3>
        {evidence && (
          <span className="small" data-testid="change-summary">
            {evidence.files} file{evidence.files === 1 ? '' : 's'} <span className="add">+{evidence.additions}</span> <span className="del">−{evidence.deletions}</span> · {evidence.commitCount} commit{evidence.commitCount === 1 ? '' : 's'}
          </span>
        )}
        {sinceAvailable && (
          <span className="seg" role="group" aria-label="What to show">
            <button type="button" aria-pressed={since} onClick={() => setSince(true)} data-testid="since-review">
              Changed since last review
            </button>
            <button type="button" aria-pressed={!since} onClick={() => setSince(false)}>
              Whole change
            </button>
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
      {decision && !decision.approved && decision.comments && <SentComments comments={decision.comments} title="Line comments sent with the rejection:" />}
      {props.preview && <PreviewSummary preview={props.preview} />}
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
          <details className="review-tested" open={evidence.runs.some((r) => r.failed.length > 0 || r.state !== 'completed')}>
            <summary>
              <h4>Tested</h4> <span className="muted small">{evidence.runs.length === 0 ? 'nothing ran in the workspace' : `${evidence.runs.length} run${evidence.runs.length === 1 ? '' : 's'}: ${evidence.runs.map((r) => r.state).join(', ')}`}</span>
            </summary>
            <Runs runs={evidence.runs} />
          </details>
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
          {since && range && (
            <p className="notice small since-note" data-testid="since-note">
              Changed since last review: <code>{range.from.slice(0, 7)}</code> (reviewed when it was sent back) → <code>{range.to.slice(0, 7)}</code> (now). “Whole change” shows everything against the base.
            </p>
          )}
          {error && <p className="form-problem">{error}</p>}
          {!files ? (
            !error && <p className="muted">Reading the change…</p>
          ) : files.length === 0 ? (
            <p className="muted">{since ? 'Nothing changed since the last review.' : 'No file changed on the branch.'}</p>
          ) : (
            <div className="review-body">
              <FileTree files={files} viewed={viewed} onToggleViewed={(p) => toggle(p)} onOpen={openFile} current={current} comments={perFile} />
              <div className="review-files">
                {files.map((f, i) => (
                  <FileDiff
                    key={`${since ? 's' : 'w'}-${i}-${f.path}`}
                    handoffId={props.handoff.id}
                    from={since && range ? 'reviewed' : 'base'}
                    file={f}
                    index={i}
                    mode={mode}
                    theme={theme}
                    open={isOpen(i, f)}
                    onToggle={() => setOpen((o) => ({ ...o, [i]: !isOpen(i, f) }))}
                    viewed={viewed.has(f.path)}
                    onViewed={() => {
                      const on = !viewed.has(f.path);
                      toggle(f.path, on);
                      setOpen((o) => ({ ...o, [i]: !on }));
                    }}
                    comments={comments}
                    onComment={(c) => props.onComments?.([...(comments ?? []), c])}
                    onUncomment={(c) => props.onComments?.((comments ?? []).filter((x) => x !== c))}
                  />
                ))}
                {evidence.patchesCut && !since && <p className="notice small">Some patches were cut at the room's cap (per file and in total): their counts are whole.</p>}
              </div>
            </div>
          )}
        </>
      )}
      <p className="muted small keys">
        <kbd>n</kbd>/<kbd>p</kbd> next/previous file · <kbd>]</kbd>/<kbd>[</kbd> next/previous hunk · <kbd>v</kbd> mark the file viewed
        {comments ? ' · + beside a line: comment on it' : ''}
      </p>
    </section>
  );
}
