import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * The emulator in a child process (`generic-resource-rest emulator --port 0`), for tests where
 * several application instances share one database, or where the database must stop answering
 * (SIGSTOP), come back (SIGCONT) or die (kill) while the application runs.
 */
export interface EmulatorProcess {
  pid: number;
  /** SIGSTOP: the server keeps its connections open and answers nothing (requests time out). */
  pause(): void;
  /** SIGCONT: it answers again, queued requests first. */
  resume(): void;
  /** Sends a signal (default SIGKILL: the server dies without closing anything). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ChildEmulatorHandle {
  uri: string;
  port: number;
  process: EmulatorProcess;
  /** Ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it; a paused one is resumed first. */
  stop(): Promise<void>;
}

export interface ChildEmulatorOptions {
  topology?: 'replset' | 'standalone';
  version?: string;
  /** Default 0: a free port. */
  port?: number;
  /** How long to wait for the connection string (ms, default 30,000). */
  startTimeoutMs?: number;
}

/** The CLI's entry next to this file: lib/cli/main.ts under tsx, dist/lib/cli/main.js when built. */
function cliEntry(): { file: string; execArgv: string[] } {
  const ext = path.extname(__filename);
  const file = path.resolve(__dirname, '..', '..', 'cli', `main${ext}`);
  const execArgv = process.execArgv.filter((a) => !a.startsWith('--inspect'));
  if (ext === '.ts' && !execArgv.some((a) => /tsx|ts-node/.test(a))) execArgv.push('--import', 'tsx');
  return { file, execArgv };
}

export async function startEmulatorProcess(options: ChildEmulatorOptions = {}): Promise<ChildEmulatorHandle> {
  const { file, execArgv } = cliEntry();
  const args = ['emulator', '--port', String(options.port ?? 0)];
  if (options.topology) args.push('--topology', options.topology);
  if (options.version) args.push('--version', options.version);
  const child: ChildProcess = fork(file, args, { execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // a parent that exits without stop() does not leave the server behind
  const onParentExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', onParentExit);
  void exited.then(() => process.off('exit', onParentExit));

  const uri = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The MongoDB emulator process did not start within ${(options.startTimeoutMs ?? 30_000) / 1000} s. ${stderr}`));
    }, options.startTimeoutMs ?? 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, newline).trim());
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`The MongoDB emulator process ended before it started (exit ${code ?? signal}): ${stderr.trim()}`));
    });
  });
  const port = Number(new URL(uri).port);
  const pid = child.pid as number;
  let stopping: Promise<void> | undefined;
  return {
    uri,
    port,
    process: {
      pid,
      pause: () => void child.kill('SIGSTOP'),
      resume: () => void child.kill('SIGCONT'),
      kill: (signal = 'SIGKILL') => void child.kill(signal),
      exited,
    },
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        child.kill('SIGCONT'); // a stopped process only acts on SIGTERM once continued
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), 5000);
        });
        if ((await Promise.race([exited, late])) === 'late') {
          child.kill('SIGKILL');
          await exited;
        }
        clearTimeout(timer);
      })()),
  };
}
