/**
 * The fault probe of issue 35: a list, a write and /health fired together every `everyMs` while a
 * fault is injected, each answer kept with when it was sent and how long it took. The checks:
 * every answer is a 200 or a 503 (with Retry-After and the error shape), within a bound, and the
 * first 200 comes soon after the database is back.
 */
export interface ProbeAnswer {
  what: 'list' | 'write' | 'health';
  status: number;
  type?: string;
  retryAfter: string | null;
  sentAt: number;
  ms: number;
}

export interface Probe {
  answers: ProbeAnswer[];
  /** Stops firing and waits for the answers still out. */
  stop(): Promise<ProbeAnswer[]>;
}

async function one(base: string, token: string, what: ProbeAnswer['what'], serial: number): Promise<ProbeAnswer> {
  const sentAt = Date.now();
  const [method, path, body] =
    what === 'list' ? ['GET', '/categories', undefined] : what === 'write' ? ['POST', '/categories', { name: `Probe ${serial}` }] : ['GET', '/health', undefined];
  try {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let type: string | undefined;
    try {
      type = (JSON.parse(text) as { type?: string }).type;
    } catch {
      type = undefined;
    }
    return { what, status: res.status, type, retryAfter: res.headers.get('retry-after'), sentAt, ms: Date.now() - sentAt };
  } catch {
    // no answer at all (30 s): a hang, reported as status 0
    return { what, status: 0, retryAfter: null, sentAt, ms: Date.now() - sentAt };
  }
}

export function startProbe(base: string, token: string, everyMs = 500): Probe {
  const answers: ProbeAnswer[] = [];
  const pending = new Set<Promise<void>>();
  let serial = 0;
  const fire = (): void => {
    for (const what of ['list', 'write', 'health'] as const) {
      const p = one(base, token, what, (serial += 1)).then((a) => void answers.push(a));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
  };
  fire();
  const timer = setInterval(fire, everyMs);
  return {
    answers,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...pending]);
      return answers.sort((a, b) => a.sentAt - b.sentAt);
    },
  };
}

/** Answers that break the rule: not 200/503, a 503 without Retry-After or error type, or slower than `maxMs`. */
export function violations(answers: ProbeAnswer[], maxMs: number, healthMaxMs = maxMs): string[] {
  return answers
    .filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter !== null && (a.what === 'health' || !!a.type))) || a.ms > (a.what === 'health' ? healthMaxMs : maxMs))
    .map((a) => `${a.what} ${a.status} ${a.type ?? ''} in ${a.ms} ms`);
}

/** How long after `since` the first 200 of a list and of a write sent after it came (ms; Infinity: none). */
export function recovery(answers: ProbeAnswer[], since: number): { list: number; write: number } {
  const first = (what: ProbeAnswer['what']) => {
    const found = answers.find((a) => a.what === what && a.sentAt >= since && a.status === 200);
    return found ? found.sentAt + found.ms - since : Infinity;
  };
  return { list: first('list'), write: first('write') };
}
