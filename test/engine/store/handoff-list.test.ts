import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDOFF_STATUSES, type HandoffStatus } from '../../../src-main/common/handoff-machine';
import { Room } from '../../../src-main/engine/room/room';
import { HandoffRepo, listEndedQuery, listVisibleQuery, type EndedFilter, type HandoffRecord, type ListOptions, type Viewer } from '../../../src-main/engine/store/handoffs';
import { makeHome, type TestHome } from '../../helpers/env';

// handoff_list's statements, one per filter shape (store/handoffs.ts), each on its own index (migration 012):
// the same handoffs in the same order as the one visibility rule (VISIBLE_TO) gives, page after page, and a
// plan that walks an index newest first instead of every handoff ever made.

const PEOPLE = ['alice', 'bob', 'carol'];
const viewers: Viewer[] = [
  { me: 'operator', all: true, canAccept: true },
  ...PEOPLE.flatMap((me) => [
    { me, all: false, canAccept: true },
    { me, all: false, canAccept: false },
  ]),
];

/** The visibility rule as VISIBLE_TO states it, in plain code. */
const sees = (v: Viewer, h: HandoffRecord) =>
  v.all || h.owner === v.me || h.target === v.me || h.assignee === v.me || (h.target === null && h.status === 'open' && v.canAccept);

describe('handoff_list statements', () => {
  let home: TestHome;
  let room: Room;
  let repo: HandoffRepo;
  let all: HandoffRecord[];

  beforeAll(() => {
    home = makeHome();
    room = Room.open({ markdown: path.join(home.root, 'list.md'), paths: home.paths });
    repo = new HandoffRepo(room.db);
    // 600 handoffs between three people and the operator, every status, some open to anyone, many created in
    // the same millisecond (the id breaks the tie)
    room.db.transaction(() => {
      for (let i = 0; i < 600; i++) {
        const owner = i % 5 === 0 ? 'operator' : (PEOPLE[i % 3] as string);
        const target = i % 4 === 0 ? null : (PEOPLE[(i + 1) % 3] as string);
        const id = `h-${String((i * 7919) % 1000).padStart(4, '0')}-${i}`;
        const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000).toISOString();
        repo.insert({ id, taskId: `t-${i}`, owner, target, summary: `s${i}`, constraints: null, artifacts: [], idempotencyKey: null, at });
        const status = HANDOFF_STATUSES[i % HANDOFF_STATUSES.length] as HandoffStatus;
        if (status !== 'open') repo.update(id, { status, assignee: target ?? (PEOPLE[(i + 2) % 3] as string) }, at);
      }
    })();
    all = room.db
      .prepare('SELECT id FROM handoffs ORDER BY created_at DESC, id DESC')
      .all()
      .map((r) => repo.get((r as { id: string }).id) as HandoffRecord);
  });
  afterAll(() => {
    room.close();
    home.cleanup();
  });

  it('give every viewer exactly what the visibility rule lets it see, newest first, page after page, under every status filter', () => {
    for (const viewer of viewers) {
      for (const status of [undefined, ...HANDOFF_STATUSES]) {
        const expected = all.filter((h) => sees(viewer, h) && (status === undefined || h.status === status)).map((h) => h.id);
        const got: string[] = [];
        let before: ListOptions['before'] = null;
        for (;;) {
          const page = repo.listVisible(viewer, { status, limit: 17, before });
          got.push(...page.map((h) => h.id));
          const last = page.at(-1);
          if (page.length < 17 || !last) break;
          before = { createdAt: last.createdAt, id: last.id };
        }
        expect(got, `${viewer.me} ${viewer.all ? 'all' : viewer.canAccept ? 'write' : 'read'} ${status ?? 'any'}`).toEqual(expected);
      }
    }
  });

  it('handoff_history gives the same ended handoffs, by when they ended, under each filter', () => {
    const ended = (h: HandoffRecord) => ['approved', 'rejected', 'cancelled'].includes(h.status);
    const byEnd = [...all].sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1));
    const filters: EndedFilter[] = [{}, { status: 'approved' }, { participant: 'bob' }, { since: '2026-01-01T00:00:30.000Z', until: '2026-01-01T00:02:00.000Z' }, { text: 'S1' }];
    for (const viewer of viewers) {
      for (const f of filters) {
        const expected = byEnd
          .filter((h) => ended(h) && sees(viewer, h) && (f.status === undefined || h.status === f.status))
          .filter((h) => f.participant === undefined || [h.owner, h.target, h.assignee].includes(f.participant))
          .filter((h) => (f.since === undefined || h.updatedAt >= f.since) && (f.until === undefined || h.updatedAt < f.until))
          .filter((h) => f.text === undefined || h.summary.includes(f.text.toLowerCase()))
          .map((h) => h.id);
        const got: string[] = [];
        let before: { at: string; id: string } | null = null;
        for (;;) {
          const page = repo.listEnded(viewer, { ...f, limit: 13, before });
          got.push(...page.map((h) => h.id));
          const last = page.at(-1);
          if (page.length < 13 || !last) break;
          before = { at: last.updatedAt, id: last.id };
        }
        expect(got, `${viewer.me} ${JSON.stringify(f)}`).toEqual(expected);
      }
    }
    const plan = (f: EndedFilter) => {
      const { sql, params } = listEndedQuery(viewers[0] as Viewer, { ...f, limit: 50, before: { at: '2026-01-01T00:01:00.000Z', id: 'h-0500' } });
      return (room.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail).join('\n');
    };
    expect(plan({})).toMatch(/^SEARCH handoffs USING INDEX handoffs_ended \(/);
    expect(plan({ status: 'rejected' })).toMatch(/^SEARCH handoffs USING INDEX handoffs_ended_by_status \(status=\?/);
    expect(plan({})).not.toContain('TEMP B-TREE');
  });

  it('walk an index for every shape: no full scan of the handoffs, and each branch on the index its filter needs', () => {
    const plan = (viewer: Viewer, options: ListOptions) => {
      const { sql, params } = listVisibleQuery(viewer, options);
      return room.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { id: number; parent: number; detail: string }[];
    };
    const before = { createdAt: '2026-01-01T00:01:00.000Z', id: 'h-0500' };
    const reader = viewers[1] as Viewer;
    const cases: [Viewer, ListOptions, string[]][] = [
      [viewers[0] as Viewer, { limit: 50 }, ['handoffs_by_created']],
      [viewers[0] as Viewer, { limit: 50, status: 'open', before }, ['handoffs_by_status_created']],
      [reader, { limit: 50 }, ['handoffs_by_owner ', 'handoffs_by_target ', 'handoffs_by_assignee ', 'handoffs_by_target_status']],
      [reader, { limit: 50, before }, ['handoffs_by_owner ', 'handoffs_by_target ', 'handoffs_by_assignee ']],
      [reader, { limit: 50, status: 'approved' }, ['handoffs_by_owner_status', 'handoffs_by_target_status', 'handoffs_by_assignee_status']],
      [reader, { limit: 50, status: 'open', before }, ['handoffs_by_owner_status', 'handoffs_by_target_status', 'handoffs_by_assignee_status']],
    ];
    for (const [viewer, options, indexes] of cases) {
      const rows = plan(viewer, options);
      const lines = rows.map((r) => r.detail);
      const text = `${lines.join('\n')}\n`;
      for (const index of indexes) expect(text.replaceAll('\n', ' '), text).toContain(`INDEX ${index}`);
      // a SCAN of the table itself (not of an index, not of a page-sized subquery) reads every handoff
      expect(lines.filter((l) => /^SCAN handoffs\b/.test(l) && !/USING (COVERING )?INDEX/.test(l)), text).toEqual([]);
      // every read of the handoffs walks its index in the order asked for: no sort beside it (that would read
      // all of a status's or a participant's handoffs to sort them); only the page-sized branches are merged
      const searches = rows.filter((r) => /^(SEARCH|SCAN) handoffs\b/.test(r.detail) && !/rowid=\?/.test(r.detail));
      expect(searches.length, text).toBeGreaterThan(0);
      for (const search of searches) {
        expect(rows.filter((r) => r.parent === search.parent && /TEMP B-TREE FOR ORDER BY/.test(r.detail)), text).toEqual([]);
      }
    }
  });
});
