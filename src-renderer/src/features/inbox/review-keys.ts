import { useEffect, useState } from 'react';

/** The element the review scrolls in (the inbox's detail pane), or the page. */
const scrollerOf = (el: HTMLElement): HTMLElement | null => el.closest<HTMLElement>('.inbox-detail');

/** Index of the file at the top of the view: the last one whose header is at or above the top edge (plus a little). */
function fileAtTop(host: HTMLElement): number | null {
  const items = [...host.querySelectorAll<HTMLElement>('.diff-file')];
  if (items.length === 0) return null;
  const top = (scrollerOf(host)?.getBoundingClientRect().top ?? 0) + 40;
  let at = 0;
  items.forEach((el, i) => {
    if (el.getBoundingClientRect().top <= top) at = i;
  });
  return at;
}

/**
 * The review's keys, while no field has the focus: n / p next or previous file, ] / [ next or previous hunk,
 * v marks the file at the top viewed (and moves to the next). Answers the index of the file at the top of the
 * view (the file tree marks it), followed as the person scrolls.
 */
export function useReviewKeys(root: React.RefObject<HTMLElement | null>, onViewed: (path: string) => void): number | null {
  const [current, setCurrent] = useState<number | null>(null);
  useEffect(() => {
    const host = root.current;
    const scroller = host ? scrollerOf(host) : null;
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (root.current) setCurrent(fileAtTop(root.current));
      });
    };
    (scroller ?? window).addEventListener('scroll', onScroll, { passive: true });
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      const el = root.current;
      if (!el || !['n', 'p', ']', '[', 'v'].includes(e.key)) return;
      const files = [...el.querySelectorAll<HTMLElement>('.diff-file')];
      if (e.key === 'v') {
        const at = fileAtTop(el);
        const file = at === null ? undefined : files[at];
        if (!file?.dataset.path) return;
        onViewed(file.dataset.path);
        files[(at ?? 0) + 1]?.scrollIntoView({ block: 'start' });
        e.preventDefault();
        return;
      }
      const selector = e.key === 'n' || e.key === 'p' ? '.diff-file' : '.diff-file [data-state="hunk"], .diff-file .diff-plain .hunk';
      const items = [...el.querySelectorAll<HTMLElement>(selector)];
      if (items.length === 0) return;
      const top = (scroller?.getBoundingClientRect().top ?? 0) + 8;
      const forward = e.key === 'n' || e.key === ']';
      const at = items.findIndex((item) => item.getBoundingClientRect().top > top + 1);
      const next = forward ? items[at < 0 ? items.length - 1 : at] : items[Math.max(0, (at < 0 ? items.length : at) - 2)];
      next?.scrollIntoView({ block: 'start' });
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      (scroller ?? window).removeEventListener('scroll', onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [root, onViewed]);
  return current;
}
