import { announce } from './announce';

export type MongoKind = 'external' | 'memory-server' | 'emulator';

export interface StartMongoOptions {
  /** Force one backend; otherwise TEST_MONGO, then MONGODB_URI, then memory-server, then the emulator. */
  backend?: MongoKind;
  /** How long to wait for the mongod download host before falling back (ms). */
  probeTimeoutMs?: number;
}

export interface MongoHandle {
  uri: string;
  kind: MongoKind;
  stop(): Promise<void>;
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
  if (forced === 'external' || (!forced && process.env.MONGODB_URI)) {
    const uri = process.env.MONGODB_URI;
    if (!uri) throw new Error('TEST_MONGO=external needs MONGODB_URI');
    announce('mongodb', `external server from MONGODB_URI`);
    return { uri, kind: 'external', stop: async () => undefined };
  }
  if (forced === 'memory-server') return startMemoryServer();
  if (forced === 'emulator') return startEmulatorHandle('forced by TEST_MONGO/options');

  const binary = await mongodBinaryAvailable(options.probeTimeoutMs ?? 3000);
  if (binary.ok) return startMemoryServer();
  return startEmulatorHandle(binary.reason);
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

async function startMemoryServer(): Promise<MongoHandle> {
  const { MongoMemoryReplSet } = await load(() => import('mongodb-memory-server'), 'mongodb-memory-server for a real mongod', 'mongodb-memory-server');
  const replSet = await within(MongoMemoryReplSet.create({ replSet: { count: 1, storageEngine: 'wiredTiger' } }), 30_000, 'mongod (mongodb-memory-server)');
  announce('mongodb', 'mongodb-memory-server (real mongod, one-member replica set)');
  return {
    uri: replSet.getUri(),
    kind: 'memory-server',
    stop: async () => {
      await replSet.stop();
    },
  };
}

async function startEmulatorHandle(reason: string): Promise<MongoHandle> {
  const { startEmulator } = await load(() => import('./emulator'), 'the emulator\'s packages (no mongod could be had)', 'bson mingo mongodb');
  const emulator = await within(startEmulator(), 30_000, 'The MongoDB emulator');
  announce('mongodb', `in-process MongoDB emulator (bson + mingo) at ${emulator.uri}; reason: ${reason}`);
  return { uri: emulator.uri, kind: 'emulator', stop: () => emulator.stop() };
}

/** A mongod is available when one is cached/installed, or when its download host answers quickly. */
async function mongodBinaryAvailable(timeoutMs: number): Promise<{ ok: true } | { ok: false; reason: string }> {
  let core: typeof import('mongodb-memory-server-core');
  try {
    core = await import('mongodb-memory-server-core');
  } catch {
    return { ok: false, reason: 'mongodb-memory-server is not installed' };
  }
  const { DryMongoBinary } = core;
  try {
    const opts = await DryMongoBinary.generateOptions();
    const found = await DryMongoBinary.locateBinary(opts);
    if (found) return { ok: true };
  } catch {
    // fall through to the download probe
  }
  if (process.env.MONGOMS_DISABLE_DOWNLOAD === '1') return { ok: false, reason: 'no mongod binary and downloads disabled' };
  try {
    const { MongoBinaryDownloadUrl } = await import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl');
    const opts = await DryMongoBinary.generateOptions();
    const url = await new MongoBinaryDownloadUrl(opts).getDownloadUrl();
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    if (res.ok) return { ok: true };
    return { ok: false, reason: `no mongod binary; download answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, reason: `no mongod binary cached and none can be downloaded (${(err as Error).message})` };
  }
}
