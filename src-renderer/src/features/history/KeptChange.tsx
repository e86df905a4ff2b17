import { useEffect, useState } from 'react';
import type { EvidenceFile, HandoffView } from '../../../../src-main/common/handoff-dto';
import { useRoom } from '../../room-context';

/** How the work went in, in words: "merged into main at 3a71b11, fast-forward" (or what else became of it). */
export function mergeText(h: HandoffView): string | null {
  const w = h.workspace;
  if (!w) return null;
  if (w.merge) return `merged into ${w.merge.into} at ${w.merge.commit.slice(0, 7)}, ${w.merge.fastForward ? 'fast-forward' : 'a merge commit'}`;
  if (h.status === 'approved') return `approved without merging: the work stays on branch ${w.branch}${w.host ? ` on ${w.host}` : ''}`;
  // a rejected one's worktree stays for a follow-up (the Follow up beside it says so)
  return h.status === 'rejected' ? null : w.note;
}

/**
 * An ended handoff's change as the room kept it (it outlives the worktree): the merge, the commits, and each
 * file's diff (read with handoff_evidence, the first page; each file folds open).
 */
export function KeptChange(props: { handoff: HandoffView }): React.JSX.Element | null {
  const { client } = useRoom();
  const h = props.handoff;
  const evidence = h.workspace?.evidence ?? null;
  const [files, setFiles] = useState<EvidenceFile[] | null>(null);
  const [more, setMore] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!evidence) return;
    let live = true;
    client.call('handoff_evidence', { handoffId: h.id, limit: 50 }).then(
      (r) => {
        if (!live) return;
        setFiles(r.files);
        setMore(r.nextCursor !== null);
      },
      (error: Error) => live && setProblem(error.message),
    );
    return () => {
      live = false;
    };
  }, [client, h.id, evidence]);
  const w = h.workspace;
  if (!w) return null;
  const merged = mergeText(h);
  return (
    <section className="kept-change" data-testid="history-change">
      <h4>The change</h4>
      {merged && (
        <p className={w.merge ? 'merge-line' : 'muted small'} data-testid="history-merge">
          {merged}
          {w.merge ? ` · by ${w.merge.by}` : ''}
        </p>
      )}
      {evidence ? (
        <>
          <p className="muted small">
            {evidence.commitCount} commit{evidence.commitCount === 1 ? '' : 's'} on {w.branch} from {w.base} ({w.baseCommit.slice(0, 7)}) · {evidence.files} file{evidence.files === 1 ? '' : 's'},{' '}
            <span className="add">+{evidence.additions}</span> <span className="del">−{evidence.deletions}</span>
          </p>
          <ul className="kept-commits">
            {evidence.commits.map((c) => (
              <li key={c.sha}>
                <code>{c.sha.slice(0, 7)}</code> <span className="truncate" title={c.subject}>{c.subject}</span> <span className="muted small">{c.author}</span>
              </li>
            ))}
          </ul>
          {problem && <p className="form-problem">{problem}</p>}
          {files?.map((f) => (
            <details key={f.path} className="kept-file">
              <summary>
                <span className="truncate" title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
                  {f.path}
                </span>
                <span className="muted small">{f.binary ? 'binary' : `+${f.additions ?? 0} −${f.deletions ?? 0}`}</span>
              </summary>
              {f.patch !== null ? (
                <pre className="kept-patch">
                  {f.patch.replace(/\n$/, '').split('\n').map((line, i) => (
                    <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : undefined}>
                      {line}
                      {'\n'}
                    </span>
                  ))}
                </pre>
              ) : (
                <p className="muted small">{f.binary ? 'A binary file: no text diff.' : 'Its patch was over the size the room keeps.'}</p>
              )}
              {f.cut && <p className="muted small">The patch shown is cut: it was longer than the room keeps.</p>}
            </details>
          ))}
          {more && <p className="muted small">More files than shown here: "ce diff {h.id}" prints them all.</p>}
        </>
      ) : (
        <p className="muted small">It ended before its work was completed: no change was captured.</p>
      )}
    </section>
  );
}
