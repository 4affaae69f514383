import type { AuthUser, RequestContext } from '../declaration';
import { replicasInUse, routeReads } from '../driver/read-route';

/** Where callers' last writes are kept: in the process, or in Redis so every instance sees them. */
export interface WriteMarks {
  mark(caller: string, windowMs: number): Promise<void>;
  recent(caller: string): Promise<boolean>;
  close(): Promise<void>;
}

/** One process: a map of callers to the end of their window. */
export class MemoryWriteMarks implements WriteMarks {
  private readonly until = new Map<string, number>();

  async mark(caller: string, windowMs: number): Promise<void> {
    const end = Date.now() + windowMs;
    this.until.set(caller, end);
    if (this.until.size > 100_000) for (const [key, at] of this.until) if (at <= Date.now()) this.until.delete(key);
  }

  async recent(caller: string): Promise<boolean> {
    const end = this.until.get(caller);
    return end !== undefined && end > Date.now();
  }

  async close(): Promise<void> {
    this.until.clear();
  }
}

/**
 * Decision 86's window: a caller who wrote within `windowMs` reads from the primary. The caller is
 * the authenticated user (an anonymous caller has no window: nothing ties their requests
 * together). Marked when a write request ends, whatever its outcome; a store that fails answers
 * "recent" (the primary is always right).
 */
export class ReadYourWrites {
  constructor(
    private readonly marks: WriteMarks,
    readonly windowMs: number,
  ) {}

  /** Marks the caller's write; nothing to mark (no store call) while no driver reads from replicas. */
  async wrote(user: AuthUser | null): Promise<void> {
    if (!user || this.windowMs <= 0 || !replicasInUse()) return;
    await this.marks.mark(String(user.id), this.windowMs).catch(() => undefined);
  }

  async replicaAllowed(user: AuthUser | null): Promise<boolean> {
    if (!user || this.windowMs <= 0) return true;
    return !(await this.marks.recent(String(user.id)).catch(() => true));
  }

  close(): Promise<void> {
    return this.marks.close();
  }

  /**
   * A route's work: a read route's reads may go to replicas (outside the caller's window); any
   * other's go to the primary. Without replicas no route is entered: an AsyncLocalStorage in use
   * makes Node 20 run a hook on every promise of the process (a few percent of a show). A change-feed stream is no read route here: its renders, rechecks
   * and timers would inherit the route, and the feed renders from the primary (decision 86).
   */
  readonly around = (route: { access: string; action?: string }, ctx: RequestContext, work: () => Promise<unknown>): Promise<unknown> =>
    route.access === 'read' && route.action !== 'changes' && replicasInUse() ? routeReads(() => this.replicaAllowed(ctx.user), work) : work();
}
