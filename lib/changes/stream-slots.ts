import { ApiError } from '../errors';

/**
 * The bound of open streams on this instance (decision 62) and each caller's share of it: one
 * token could otherwise take every slot and leave everyone else a 503. A caller is an
 * authenticated user, or an address when nobody authenticated.
 */
export class StreamSlots {
  private open = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly perCaller: number,
  ) {}

  get count(): number {
    return this.open;
  }

  /** Takes a slot for `caller`: 429 past the caller's share, 503 past the instance's bound. */
  take(caller: string): void {
    const held = this.byCaller.get(caller) ?? 0;
    if (held >= this.perCaller) {
      throw new ApiError('too_many_requests', `Too many open change streams for this caller: at most ${this.perCaller} of this server's ${this.max} per caller; close one first.`);
    }
    if (this.open >= this.max) throw new ApiError('connection_error', `Too many open change streams on this server (${this.max}); try again later.`);
    this.byCaller.set(caller, held + 1);
    this.open += 1;
  }

  release(caller: string): void {
    const held = (this.byCaller.get(caller) ?? 0) - 1;
    if (held > 0) this.byCaller.set(caller, held);
    else this.byCaller.delete(caller);
    this.open -= 1;
  }
}
