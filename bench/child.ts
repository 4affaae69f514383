import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** A bench helper process (its own event loop) and the first message it sent. */
export interface Child<T> {
  process: ChildProcess;
  ready: T;
  /** Resolves when the child answers 'idle' (used: the server child has no request in progress). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

let compiled = false;

/**
 * The served side as users run it: JavaScript compiled by tsc (tsconfig.bench.json, into
 * bench/tmp/build), not TypeScript through tsx, whose esbuild transform names every function
 * made at run time (`__name`, a defineProperty per closure per request: 2 % of a show's CPU,
 * more of the library's than of a hand-written handler's). BENCH_TSX=1 serves through tsx.
 */
function compiledScript(script: string): string {
  if (process.env.BENCH_TSX === '1') return join(__dirname, script);
  if (!compiled) {
    const root = join(__dirname, '..');
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.bench.json')], { cwd: root, encoding: 'utf8' });
    if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.bench.json failed:\n${tsc.stdout}${tsc.stderr}`);
    compiled = true;
  }
  return join(__dirname, 'tmp', 'build', 'bench', script.replace(/\.ts$/, '.js'));
}

/**
 * Forks `bench/<script>`, compiled (above), and waits for its first IPC message (`{error}` rejects).
 * `env`: added to this process's environment for the child. stop() sends 'stop' and waits for the exit (SIGKILL after 10 s).
 */
export function startChild<T>(script: string, args: string[], nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<Child<T>> {
  const file = compiledScript(script);
  const execArgv = file.endsWith('.ts') ? ['--import', 'tsx', ...nodeFlags] : nodeFlags;
  const child = fork(file, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    child.once('message', (message: unknown) => {
      const m = message as { error?: string };
      if (m && typeof m === 'object' && typeof m.error === 'string') {
        void stop().finally(() => reject(new Error(`${script}: ${m.error}`)));
        return;
      }
      const idle = (): Promise<void> =>
        new Promise((done) => {
          const onMessage = (m: unknown): void => {
            if (m !== 'idle') return;
            child.off('message', onMessage);
            done();
          };
          child.on('message', onMessage);
          child.send('idle?');
        });
      resolve({ process: child, ready: message as T, idle, stop });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
}

export interface Served {
  message: unknown;
  cleanup: () => Promise<void>;
  /** Resolves once nothing is in progress (default: at once). */
  idle?: () => Promise<void>;
}

let session: Session | null = null;
let heap = false;

/**
 * `{profile: 'start'}` starts the CPU profiler in this process (`'start-heap'`: the sampling heap
 * profiler, collected objects included; `'start-promoted'`: only objects that outlived the young
 * generation, what fills the old space); `{profile: '<file>'}` stops it and
 * writes the profile there, then answers `{profiled: '<file>'}`: a profile of the load alone, not
 * of the start (bench/profile.ts).
 */
async function profileCommand(command: string): Promise<void> {
  if (command === 'start' || command === 'start-heap' || command === 'start-promoted') {
    session = new Session();
    session.connect();
    if (command !== 'start') {
      heap = true;
      await session.post('HeapProfiler.enable');
      // every allocation sampled, also those already collected: where the garbage comes from
      // ('start-promoted': only what survived the young generation, the old space's garbage)
      const minor = command === 'start-heap';
      await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: minor } as never);
    } else {
      heap = false;
      await session.post('Profiler.enable');
      // BENCH_PROFILE_INTERVAL_US: a finer sampling interval than V8's default (1,000 µs)
      if (process.env.BENCH_PROFILE_INTERVAL_US) await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_PROFILE_INTERVAL_US) });
      await session.post('Profiler.start');
    }
    process.send?.({ profiling: true });
    return;
  }
  if (!session) return;
  const { profile } = heap ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
  await writeFile(command, JSON.stringify(profile));
  session.disconnect();
  session = null;
  process.send?.({ profiled: command });
}

/** In a child: report readiness (or failure), answer 'idle?', run `cleanup` when the parent says stop. */
export function serveChild(start: () => Promise<Served>): void {
  start().then(
    ({ message, cleanup, idle }) => {
      process.send?.(message);
      process.on('message', (m) => {
        if (m === 'idle?') void (idle ?? (async () => undefined))().then(() => process.send?.('idle'));
        if (m === 'stop') void cleanup().finally(() => process.exit(0));
        if (m && typeof m === 'object' && 'profile' in m) void profileCommand((m as { profile: 'start' | string }).profile);
      });
      process.on('disconnect', () => void cleanup().finally(() => process.exit(0)));
    },
    (err: unknown) => {
      process.send?.({ error: err instanceof Error ? err.stack ?? err.message : String(err) });
    },
  );
}
