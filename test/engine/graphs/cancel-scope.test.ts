import { describe, expect, it } from 'vitest';
import { CancelScope, type EndRequest } from '../../../src-main/engine/graphs/run/cancel-scope';

describe('the cancellation tree (runtime → graph → stage → attempt)', () => {
  it('cancelling a graph ends every attempt below it, once, and resolves only when they all ended', async () => {
    const root = new CancelScope();
    const ended: string[] = [];
    let finishSlow!: () => void;
    const slow = new Promise<void>((r) => (finishSlow = r));
    root.child('g1').child('a').child('1').onCancel(async (why) => {
      await slow;
      ended.push(`a:${why.reason}`);
    });
    root.child('g1').child('b').child('1').onCancel((why) => void ended.push(`b:${why.reason}`));
    root.child('g2').child('c').child('1').onCancel(() => void ended.push('c'));
    let done = false;
    const cancelling = root.find('g1')?.cancel({ reason: 'cancel' }).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false); // a is still ending
    finishSlow();
    await cancelling;
    expect(ended.sort()).toEqual(['a:cancel', 'b:cancel']); // g2 untouched
  });

  it('the first request wins: an attempt timing out is not re-ended by a later cancel', async () => {
    const attempt = new CancelScope().child('g').child('s').child('1');
    const seen: EndRequest[] = [];
    attempt.onCancel((why) => void seen.push(why));
    await attempt.cancel({ reason: 'timeout' });
    await attempt.cancel({ reason: 'cancel' });
    expect(seen).toEqual([{ reason: 'timeout' }]);
  });

  it('work started under a cancelled scope is cancelled at once', async () => {
    const root = new CancelScope();
    const graph = root.child('g');
    await graph.cancel({ reason: 'cancel', maxGraceMs: 100 });
    const seen: EndRequest[] = [];
    graph.child('late').onCancel((why) => void seen.push(why));
    await Promise.resolve();
    expect(seen).toEqual([{ reason: 'cancel', maxGraceMs: 100 }]);
  });

  it('ended work leaves the tree, and a stage with nothing left under it leaves with it', () => {
    const root = new CancelScope();
    const attempt = root.child('g').child('s').child('1');
    const release = root.child('g').child('s').onCancel(() => undefined); // a retry wait on the stage
    attempt.detach();
    expect(root.find('g', 's')).toBeDefined();
    release();
    expect(root.find('g', 's')).toBeUndefined();
    expect(root.find('g')).toBeUndefined();
  });
});
