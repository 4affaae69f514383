import autocannon from 'autocannon';

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** non-2xx answers + socket errors + timeouts; anything but 0 makes the figures suspect. */
  failures: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** Sent with every request (an Authorization header). */
  headers?: Record<string, string>;
}

/**
 * A short discarded warm-up (JIT, pools, caches), then the measured run; `idle` waits for the
 * server to finish requests autocannon abandoned, before the measured run and after it.
 */
export async function load(url: string, options: LoadOptions, idle: () => Promise<void>): Promise<LoadFigures> {
  const headers = options.headers ?? {};
  if (options.warmupSeconds > 0) await autocannon({ url, connections: options.connections, duration: options.warmupSeconds, timeout: 60, headers });
  await idle();
  const r = await autocannon({ url, connections: options.connections, duration: options.seconds, timeout: 60, headers });
  await idle();
  return {
    requestsPerSecond: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

export interface TimingFigures {
  /** Milliseconds per request, one per repetition. */
  samples: number[];
  median: number;
  min: number;
}

function figures(samples: number[]): TimingFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { samples, median: sorted[Math.floor(sorted.length / 2)], min: sorted[0] };
}

/**
 * Times two operations alternately (a, b, a, b, …) so drift (autovacuum, table growth) hits both
 * alike: `warmup` unmeasured rounds, then `repetitions` measured ones; wall time in ms.
 */
export async function timePair(
  a: (rep: number) => Promise<void>,
  b: (rep: number) => Promise<void>,
  repetitions: number,
  warmup: number,
): Promise<{ a: TimingFigures; b: TimingFigures }> {
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  for (let i = -warmup; i < repetitions; i++) {
    for (const [op, samples] of [[a, samplesA], [b, samplesB]] as const) {
      const start = performance.now();
      await op(i);
      if (i >= 0) samples.push(performance.now() - start);
    }
  }
  return { a: figures(samplesA), b: figures(samplesB) };
}
