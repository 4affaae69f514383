/** Something the cycle writes: a stream with frames pending, or a subscriber owed events. */
export interface FlushUnit {
  flush(): void;
}

/** Work that joins the next cycle (the fan-out of newly published events): its units, taken when the cycle starts. */
export interface FlushSource {
  begin(): Iterable<FlushUnit>;
}

/** The shortest period between two cycles' starts (ms): frames wait at most this long to share one write per stream. */
export const FLUSH_MS = 20;

/**
 * Units written per turn of the event loop: a thousand writes at once held every request that
 * arrived meanwhile for the whole burst; in slices, requests are served between them. 100 held a
 * turn about a millisecond (a loopback write is ~7 us of syscall): at 25 a write's p50 at 1,000
 * streams went 2.9-3.6 -> 2.1-2.3 ms (bench:changes).
 */
export const FLUSH_SLICE = 25;

/** The most a slice holds the event loop (ms), whatever its count: a write's request waits at most this per turn. */
export const SLICE_MS = 4;

/**
 * After a cycle that kept the loop busy for `b` ms, the next starts no sooner than `REST * b` ms
 * after its end: the feed's measured share is at most a quarter of the event loop. A socket
 * write costs about the same whatever it carries (the loopback's syscall, the HTTP chunk), so
 * under load a longer period puts more events in each write instead of queueing writes in front
 * of the requests (issue 52's CPU profile: 65 % of the loop in `writev`). The cycles' own CPU
 * undercounts what the streams cost the process (the kernel's side of the writes, their
 * completions): with 2 (a third) the server ran at 70-75 % of a core at 1,000 streams and 100
 * writes/s and a write's p50 inside it was 4.0-5.6 ms; with 3 it is 2.6-3.2 ms, delivery p99
 * still 71-96 ms (bench/RESULTS.md); 6 gave 1.45 ms but a p99 of 149 ms.
 */
export const REST = 3;

/**
 * The feed's one writer (issue 52): every due stream is written in cycles, one write per stream
 * per cycle, in slices of FLUSH_SLICE units or SLICE_MS, paced so the writes take at most a share
 * of the event loop. A frame added to a stream while a cycle runs joins that stream's write when
 * its turn comes, or the next cycle.
 */
export class FlushCycle {
  private readonly dirty = new Set<FlushUnit>();
  private readonly sources = new Set<FlushSource>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private lastStart = -Infinity;
  private notBefore = 0;
  /** CPU time the cycles took (ms, at most their wall time), for operators and the benchmark. */
  busyMs = 0;
  cycles = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A stream with frames pending: written in the next cycle. */
  add(unit: FlushUnit): void {
    this.dirty.add(unit);
    this.schedule();
  }

  /** A stream written (or closed) outside a cycle. */
  remove(unit: FlushUnit): void {
    this.dirty.delete(unit);
  }

  /** A source with work: its units join the next cycle. */
  due(source: FlushSource): void {
    this.sources.add(source);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    const now = this.now();
    const wait = Math.max(0, this.lastStart + FLUSH_MS - now, this.notBefore - now);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, wait);
  }

  private run(): void {
    this.running = true;
    this.lastStart = this.now();
    this.cycles += 1;
    const units: FlushUnit[] = [...this.dirty];
    this.dirty.clear();
    const sources = [...this.sources];
    this.sources.clear();
    for (const source of sources) {
      try {
        for (const unit of source.begin()) units.push(unit);
      } catch {
        // a source that fails takes nothing into this cycle; the streams' own writes go on
      }
    }
    let busy = 0;
    let at = 0;
    // the process's CPU time over the whole cycle bounds the slices' wall time: on a crowded machine
    // a slice preempted by other processes would otherwise read as the feed's cost and stretch the
    // period for nothing (read once per cycle: getrusage sums every thread, ~50 us a call)
    const cpu = process.cpuUsage();
    const slice = () => {
      const started = this.now();
      const end = Math.min(at + FLUSH_SLICE, units.length);
      while (at < end) {
        try {
          units[at].flush();
        } catch {
          // one stream's failed write (a socket torn down under it) must not stop every other stream's cycle
        }
        at += 1;
        if (this.now() - started >= SLICE_MS) break;
      }
      busy += this.now() - started;
      if (at < units.length) {
        setImmediate(slice);
        return;
      }
      const used = process.cpuUsage(cpu);
      busy = Math.min(busy, (used.user + used.system) / 1000);
      this.busyMs += busy;
      this.running = false;
      this.notBefore = this.now() + REST * busy;
      if (this.dirty.size > 0 || this.sources.size > 0) this.schedule();
    };
    slice();
  }
}

/** The cycle every stream of this process is written by. */
export const flushCycle = new FlushCycle();
