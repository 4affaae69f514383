/** Latencies and answers by status of one kind of request in the soak (status 0: a network error). */
export class Tally {
  readonly latencies: number[] = [];
  readonly statuses = new Map<number, number>();
  /** Why requests got no answer: message (cause) -> count. */
  readonly errors = new Map<string, number>();

  /** Runs one request, reads its body, records its status and time; answers the status. */
  async time(run: () => Promise<Response>): Promise<number> {
    const t0 = performance.now();
    let status = 0;
    try {
      const res = await run();
      await res.arrayBuffer();
      status = res.status;
    } catch (error) {
      status = 0;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      this.errors.set(reason, (this.errors.get(reason) ?? 0) + 1);
    }
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    // bounded: a very long run keeps memory flat (the first 3 million are plenty for p99)
    if (this.latencies.length < 3_000_000) this.latencies.push(performance.now() - t0);
    return status;
  }

  total(): number {
    return [...this.statuses.values()].reduce((a, b) => a + b, 0);
  }

  fiveXX(): number {
    return [...this.statuses.entries()].filter(([s]) => s >= 500 || s === 0).reduce((n, [, c]) => n + c, 0);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0;
}

/** One Markdown table row: kind, requests, rate, statuses, p50, p99. */
export function latencyRow(kind: string, t: Tally, seconds: number): string {
  const sorted = Float64Array.from(t.latencies).sort();
  const xs = Array.from(sorted);
  const statuses = [...t.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'network error' : s}: ${n.toLocaleString('en')}`).join(', ');
  return `| ${kind} | ${t.total().toLocaleString('en')} | ${(t.total() / seconds).toFixed(0)} | ${statuses} | ${percentile(xs, 0.5).toFixed(1)} | ${percentile(xs, 0.99).toFixed(1)} |`;
}
