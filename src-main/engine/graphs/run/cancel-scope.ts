import type { StageExit } from '../../../common/graphs/stage-machine';

/** Why live work is ended early, and (on the room's close) a cap on each attempt's grace period. */
export interface EndRequest {
  reason: NonNullable<StageExit['endedBy']>;
  maxGraceMs?: number | undefined;
}

/**
 * One node of the runtime's cancellation tree: runtime → graph → stage → attempt. Cancelling a node cancels
 * everything below it, runs each node's handlers once (the first request wins: a stage cancelled while its
 * attempt is already timing out stays timed out), and resolves when all of them finished, that is when every
 * attempt's process tree ended and its exit was seen. This is the one way live work is ended: a graph's
 * cancel, a stage's cancel, a timeout, a service stop and the room's close all come through here.
 */
export class CancelScope {
  private readonly children = new Map<string, CancelScope>();
  private readonly handlers: ((request: EndRequest) => void | Promise<void>)[] = [];
  private ending: Promise<void> | undefined;
  private request: EndRequest | undefined;

  constructor(
    private readonly key = '',
    private readonly parent?: CancelScope,
  ) {}

  get cancelled(): boolean {
    return this.ending !== undefined;
  }

  /** The child scope under `key`, created if needed (a child of a cancelled scope is cancelled at once). */
  child(key: string): CancelScope {
    let c = this.children.get(key);
    if (!c) {
      c = new CancelScope(key, this);
      this.children.set(key, c);
      if (this.request) void c.cancel(this.request);
    }
    return c;
  }

  /** The scope at `keys` below this one, if it exists. */
  find(...keys: string[]): CancelScope | undefined {
    const [first, ...rest] = keys;
    if (first === undefined) return this;
    return this.children.get(first)?.find(...rest);
  }

  /** Runs `fn` when this scope is cancelled (at once if it already was). Returns a release. */
  onCancel(fn: (request: EndRequest) => void | Promise<void>): () => void {
    this.handlers.push(fn);
    if (this.request) void Promise.resolve(fn(this.request));
    return () => {
      const i = this.handlers.indexOf(fn);
      if (i >= 0) this.handlers.splice(i, 1);
      this.detachIfIdle();
    };
  }

  cancel(request: EndRequest): Promise<void> {
    this.ending ??= (async () => {
      this.request = request;
      await Promise.all([...[...this.handlers].map(async (fn) => fn(request)), ...[...this.children.values()].map((c) => c.cancel(request))]);
    })();
    return this.ending;
  }

  /** Leaves the tree (the work it stood for ended); an emptied parent leaves too. */
  detach(): void {
    const p = this.parent;
    if (!p || p.children.get(this.key) !== this) return;
    p.children.delete(this.key);
    p.detachIfIdle();
  }

  private detachIfIdle(): void {
    if (this.children.size === 0 && this.handlers.length === 0) this.detach();
  }
}
