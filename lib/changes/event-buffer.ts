import type { ChangeEvent } from './types';

/** The recent events of one resource, oldest first, at most `size` (a ring). */
export class EventBuffer {
  private readonly events: ChangeEvent[] = [];
  private start = 0;

  constructor(private readonly size: number) {}

  push(event: ChangeEvent): void {
    if (this.events.length < this.size) this.events.push(event);
    else {
      this.events[this.start] = event;
      this.start = (this.start + 1) % this.size;
    }
  }

  /** The events after `id`, oldest first; null when `id` is not (or no longer) buffered. */
  after(id: string): ChangeEvent[] | null {
    const n = this.events.length;
    for (let i = n - 1; i >= 0; i -= 1) {
      const at = (this.start + i) % n;
      if (this.events[at].id !== id) continue;
      const out: ChangeEvent[] = [];
      for (let j = i + 1; j < n; j += 1) out.push(this.events[(this.start + j) % n]);
      return out;
    }
    return null;
  }
}
