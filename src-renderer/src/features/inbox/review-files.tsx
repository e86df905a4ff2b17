import { useCallback, useEffect, useMemo, useState } from 'react';
import type { EvidenceFile } from '../../../../src-main/common/handoff-dto';

export const STATUS_LETTER: Record<EvidenceFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', copied: 'C', 'type-changed': 'T' };
export const fileAnchor = (i: number) => `diff-file-${i}`;

/**
 * The files the person marked viewed in one review: kept in this browser's storage under the handoff, the
 * commit reviewed and the person signed in, so a new commit (a re-capture, the next completion) starts unviewed
 * and two people sharing a browser keep their own marks.
 */
export function useViewed(handoffId: string, head: string | undefined, person: string): { viewed: Set<string>; toggle(path: string, on?: boolean): void } {
  const key = `commonroom.viewed.${person}.${handoffId}.${head ?? 'none'}`;
  const read = useCallback((): Set<string> => {
    try {
      const raw = window.localStorage.getItem(key);
      return new Set(raw ? (JSON.parse(raw) as string[]) : []);
    } catch {
      return new Set();
    }
  }, [key]);
  const [viewed, setViewed] = useState<Set<string>>(read);
  useEffect(() => setViewed(read()), [read]);
  const toggle = useCallback(
    (path: string, on?: boolean) => {
      setViewed((now) => {
        const next = new Set(now);
        if (on ?? !next.has(path)) next.add(path);
        else next.delete(path);
        try {
          window.localStorage.setItem(key, JSON.stringify([...next]));
        } catch {
          // storage full or refused: the marks last as long as the page
        }
        return next;
      });
    },
    [key],
  );
  return { viewed, toggle };
}

/** The files grouped by folder, in the diff's order within each folder. */
function byFolder(files: readonly EvidenceFile[]): { folder: string; items: { file: EvidenceFile; index: number }[] }[] {
  const groups = new Map<string, { file: EvidenceFile; index: number }[]>();
  files.forEach((file, index) => {
    const slash = file.path.lastIndexOf('/');
    const folder = slash < 0 ? '' : file.path.slice(0, slash);
    const list = groups.get(folder) ?? [];
    list.push({ file, index });
    groups.set(folder, list);
  });
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([folder, items]) => ({ folder, items }));
}

/** The sticky file tree beside the diff: folders, each file with its counts and its viewed mark; a click opens and scrolls to it. */
export function FileTree(props: { files: EvidenceFile[]; viewed: Set<string>; onToggleViewed(path: string): void; onOpen(index: number): void; current: number | null; comments: Record<string, number> }): React.JSX.Element {
  const groups = useMemo(() => byFolder(props.files), [props.files]);
  const seen = props.files.filter((f) => props.viewed.has(f.path)).length;
  return (
    <nav className="file-tree" aria-label="Files changed">
      <p className="file-tree-head small">
        <span data-testid="viewed-count">
          {seen}/{props.files.length} viewed
        </span>
      </p>
      <ol>
        {groups.map((g) => (
          <li key={g.folder} className="tree-folder">
            {g.folder && <span className="tree-folder-name muted small" title={g.folder}>{g.folder}/</span>}
            <ol>
              {g.items.map(({ file: f, index }) => {
                const name = g.folder ? f.path.slice(g.folder.length + 1) : f.path;
                return (
                  <li key={`${index}-${f.path}`} className={`tree-file${props.current === index ? ' current' : ''}${props.viewed.has(f.path) ? ' viewed' : ''}`}>
                    <input type="checkbox" aria-label={`Viewed ${f.path}`} checked={props.viewed.has(f.path)} onChange={() => props.onToggleViewed(f.path)} data-testid="tree-viewed" />
                    <a
                      href={`#${fileAnchor(index)}`}
                      title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}
                      onClick={(e) => {
                        e.preventDefault();
                        props.onOpen(index);
                      }}
                    >
                      <span className={`file-status status-${f.status}`}>{STATUS_LETTER[f.status]}</span> <span className="truncate">{name}</span>
                    </a>
                    {(props.comments[f.path] ?? 0) > 0 && <span className="tree-comments small" title="your line comments on it">{props.comments[f.path]} comment{props.comments[f.path] === 1 ? '' : 's'}</span>}
                    {f.binary ? <span className="muted small">bin</span> : <span className="counts small"><span className="add">+{f.additions}</span> <span className="del">−{f.deletions}</span></span>}
                  </li>
                );
              })}
            </ol>
          </li>
        ))}
      </ol>
    </nav>
  );
}

/**
 * A file's patch as plain lines, drawn at once while its highlighted diff is not yet (files far from the view
 * are drawn lazily): the text is there while scrolling, never a blank band.
 */
export function PlainPatch(props: { patch: string }): React.JSX.Element {
  const lines = props.patch.slice(props.patch.indexOf('\n@@') + 1).split('\n');
  return (
    <pre className="diff-plain" aria-hidden="true">
      {lines.map((l, i) => (
        <span key={i} className={l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : undefined}>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
