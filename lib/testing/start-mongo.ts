import { announce } from './announce';

export type MongoKind = 'external' | 'memory-server' | 'emulator';

export interface StartMongoOptions {
  /** Force one backend; otherwise TEST_MONGO, then MONGODB_URI, then memory-server, then the emulator. */
  backend?: MongoKind;
  /** How long to wait for the mongod download host before falling back (ms). */
  probeTimeoutMs?: number;
  /**
   * `replset` (default: a one-member replica set) or `standalone` (a mongod without one, which
   * refuses transactions); default TEST_MONGO_TOPOLOGY. Not applied to MONGODB_URI's server.
   */
  topology?: 'replset' | 'standalone';
  /**
   * The MongoDB release to play: `5.0`, `6.0`, `7.0`, `8.0` (the emulator also plays `4.4`); default
   * TEST_MONGO_VERSION. The emulator then answers hello/buildInfo as that release and refuses what
   * it does not have; mongodb-memory-server downloads that release.
   */
  version?: string;
  /**
   * `child`: the emulator as a child process (`generic-resource-rest emulator`), whatever
   * TEST_MONGO / MONGODB_URI say, so that several application instances share one database and
   * tests can pause (SIGSTOP), resume (SIGCONT) or kill it through `handle.child`. Default
   * `in-process`: the usual choice of backend.
   */
  process?: 'in-process' | 'child';
}

export interface MongoHandle {
  uri: string;
  kind: MongoKind;
  /** Only with `process: 'child'`: the emulator's process (pid, pause, resume, kill, exited). */
  child?: import('./emulator/child').EmulatorProcess;
  stop(): Promise<void>;
}

/** A patch release of each line, for mongodb-memory-server's download. */
const MEMORY_SERVER_RELEASES: Record<string, string> = { '4.4': '4.4.29', '5.0': '5.0.26', '6.0': '6.0.19', '7.0': '7.0.14', '8.0': '8.0.4' };

interface Played {
  topology: 'replset' | 'standalone';
  version: string | undefined;
}

function playedFrom(options: StartMongoOptions): Played {
  const topology = (options.topology ?? process.env.TEST_MONGO_TOPOLOGY ?? 'replset').trim().toLowerCase();
  if (topology !== 'replset' && topology !== 'standalone') throw new Error(`TEST_MONGO_TOPOLOGY must be replset or standalone, not "${topology}"`);
  const version = (options.version ?? process.env.TEST_MONGO_VERSION)?.trim() || undefined;
  return { topology, version };
}

function describePlayed(played: Played): string {
  return `${played.topology === 'standalone' ? 'standalone' : 'one-member replica set'}${played.version ? `, MongoDB ${played.version}` : ''}`;
}

function isKind(value: string | undefined): value is MongoKind {
  return value === 'external' || value === 'memory-server' || value === 'emulator';
}

/**
 * Starts (or connects to) a MongoDB for tests and example runs.
 * Order: MONGODB_URI; else mongodb-memory-server as a one-member replica set; else, when no mongod
 * binary can be had (no cached binary and the download host does not answer quickly), the
 * in-process emulator. The choice is printed once.
 */
export async function startMongo(options: StartMongoOptions = {}): Promise<MongoHandle> {
  const forced = options.backend ?? (isKind(process.env.TEST_MONGO) ? process.env.TEST_MONGO : undefined);
  const played = playedFrom(options);
  if (options.process === 'child') return startChildEmulator(played);
  if (forced === 'external' || (!forced && process.env.MONGODB_URI)) {
    const uri = process.env.MONGODB_URI;
    if (!uri) throw new Error('TEST_MONGO=external needs MONGODB_URI');
    const ignored = options.topology || options.version || process.env.TEST_MONGO_TOPOLOGY || process.env.TEST_MONGO_VERSION ? ' (TEST_MONGO_TOPOLOGY/TEST_MONGO_VERSION do not apply to it)' : '';
    announce('mongodb', `external server from MONGODB_URI${ignored}`);
    return { uri, kind: 'external', stop: async () => undefined };
  }
  if (forced === 'memory-server') return startMemoryServer(played);
  if (forced === 'emulator') return startEmulatorHandle('forced by TEST_MONGO/options', played);

  const binary = await mongodBinaryAvailable(options.probeTimeoutMs ?? 3000, played.version);
  if (binary.ok) return startMemoryServer(played);
  return startEmulatorHandle(binary.reason, played);
}

/** The testing kit's engines are dev dependencies of the application: say which one to install. */
async function load<T>(load: () => Promise<T>, what: string, install: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND' || (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error(`The testing kit needs ${what}: npm install --save-dev ${install} (or set MONGODB_URI to a server of your own).`);
    }
    throw error;
  }
}

/** Bounds a start-up step: a server that cannot start fails with its cause instead of hanging. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms / 1000} s.`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

function memoryServerVersion(version: string | undefined): string | undefined {
  if (!version) return undefined;
  const line = /^\d+\.\d+$/.test(version) ? version : /^\d+$/.test(version) ? `${version}.0` : null;
  return line ? (MEMORY_SERVER_RELEASES[line] ?? `${line}.0`) : version;
}

async function startMemoryServer(played: Played): Promise<MongoHandle> {
  const { MongoMemoryReplSet, MongoMemoryServer } = await load(() => import('mongodb-memory-server'), 'mongodb-memory-server for a real mongod', 'mongodb-memory-server');
  const binary = played.version ? { binary: { version: memoryServerVersion(played.version) } } : {};
  if (played.topology === 'standalone') {
    const server = await within(MongoMemoryServer.create({ ...binary }), 30_000, 'mongod (mongodb-memory-server)');
    announce('mongodb', `mongodb-memory-server (real mongod, ${describePlayed(played)})`);
    return { uri: server.getUri(), kind: 'memory-server', stop: async () => void (await server.stop()) };
  }
  const replSet = await within(MongoMemoryReplSet.create({ ...binary, replSet: { count: 1, storageEngine: 'wiredTiger' } }), 30_000, 'mongod (mongodb-memory-server)');
  announce('mongodb', `mongodb-memory-server (real mongod, ${describePlayed(played)})`);
  return {
    uri: replSet.getUri(),
    kind: 'memory-server',
    stop: async () => {
      await replSet.stop();
    },
  };
}

async function startEmulatorHandle(reason: string, played: Played): Promise<MongoHandle> {
  const { startEmulator } = await load(() => import('./emulator'), 'the emulator\'s packages (no mongod could be had)', 'bson mingo mongodb');
  const emulator = await within(startEmulator({ topology: played.topology, version: played.version }), 30_000, 'The MongoDB emulator');
  const { profile } = emulator;
  announce('mongodb', `in-process MongoDB emulator (bson + mingo) at ${emulator.uri}, playing MongoDB ${profile.version} as a ${profile.topology === 'standalone' ? 'standalone server' : 'one-member replica set'}; reason: ${reason}`);
  return { uri: emulator.uri, kind: 'emulator', stop: () => emulator.stop() };
}

async function startChildEmulator(played: Played): Promise<MongoHandle> {
  const { startEmulatorProcess } = await import('./emulator/child');
  const started = await startEmulatorProcess({ topology: played.topology, version: played.version });
  announce('mongodb', `MongoDB emulator in a child process (pid ${started.process.pid}) at ${started.uri}, playing ${describePlayed(played)}`);
  return { uri: started.uri, kind: 'emulator', child: started.process, stop: () => started.stop() };
}

/** A mongod is available when one is cached/installed, or when its download host answers quickly. */
async function mongodBinaryAvailable(timeoutMs: number, version: string | undefined): Promise<{ ok: true } | { ok: false; reason: string }> {
  let core: typeof import('mongodb-memory-server-core');
  try {
    core = await import('mongodb-memory-server-core');
  } catch {
    return { ok: false, reason: 'mongodb-memory-server is not installed' };
  }
  const { DryMongoBinary } = core;
  try {
    const opts = await DryMongoBinary.generateOptions(version ? { version: memoryServerVersion(version) } : undefined);
    const found = await DryMongoBinary.locateBinary(opts);
    if (found) return { ok: true };
  } catch {
    // fall through to the download probe
  }
  if (process.env.MONGOMS_DISABLE_DOWNLOAD === '1') return { ok: false, reason: 'no mongod binary and downloads disabled' };
  try {
    const { MongoBinaryDownloadUrl } = await import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl');
    const opts = await DryMongoBinary.generateOptions(version ? { version: memoryServerVersion(version) } : undefined);
    const url = await new MongoBinaryDownloadUrl(opts).getDownloadUrl();
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    if (res.ok) return { ok: true };
    return { ok: false, reason: `no mongod binary; download answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, reason: `no mongod binary cached and none can be downloaded (${(err as Error).message})` };
  }
}
