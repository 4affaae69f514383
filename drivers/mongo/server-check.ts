import type { Document } from 'mongodb';

/**
 * What the MongoDB driver needs of the server, asked once at start (decision 65): `hello` says the
 * topology, `buildInfo` the version.
 *
 * - The oldest supported release is 5.0 (everything the driver sends exists there: docs/emulator.md,
 *   "What the MongoDB driver sends, by release"). Older servers are refused, naming both versions.
 * - Writes run in multi-document transactions, which need a replica set member or a mongos. A
 *   standalone server is refused with how to make it a one-node replica set, unless the application
 *   declared `transactions: false` for the connection (writes then run without a transaction).
 * - Through a mongos, `$lookup` and `$graphLookup` (eager loads, relation filters and sort keys,
 *   hierarchies) may only read sharded collections from 5.1 on; a mongos older than 5.1 is refused.
 */

export const OLDEST_SUPPORTED_VERSION = '5.0';
/** `$lookup`/`$graphLookup` into a sharded collection: from this release on. */
export const SHARDED_LOOKUP_VERSION = '5.1';

export type MongoTopology = 'replicaSet' | 'mongos' | 'standalone';

export interface MongoServerFacts {
  topology: MongoTopology;
  /** buildInfo's version string (`7.0.14`). */
  version: string;
  /** `[major, minor]`. */
  release: [number, number];
  /** The replica set's name, when there is one. */
  setName?: string;
}

export interface ServerCheckOptions {
  /** false: the application declared that writes run without multi-document transactions. */
  transactions: boolean;
  /** How the server is named in messages (`host:port`), never with credentials. */
  where?: string;
}

/** The server cannot serve this library as configured; the message says why and what to do. */
export class MongoServerRefusedError extends Error {
  readonly facts: MongoServerFacts;

  constructor(message: string, facts: MongoServerFacts) {
    super(message);
    this.name = 'MongoServerRefusedError';
    this.facts = facts;
  }
}

/** Asks the server (through `run`, a command on the admin database) what it is. */
export async function inspectMongoServer(run: (command: Document) => Promise<Document>): Promise<MongoServerFacts> {
  const hello = await run({ hello: 1 }).catch(async (error: unknown) => {
    // servers before 4.4.2 answer the legacy name only; the Node.js driver refuses them anyway
    if ((error as { code?: number }).code === 59) return run({ isMaster: 1 });
    throw error;
  });
  const build = await run({ buildInfo: 1 });
  const topology: MongoTopology = hello.msg === 'isdbgrid' ? 'mongos' : typeof hello.setName === 'string' ? 'replicaSet' : 'standalone';
  const version = typeof build.version === 'string' ? build.version : 'unknown';
  const release = releaseOf(build.versionArray, version);
  return { topology, version, release, ...(typeof hello.setName === 'string' ? { setName: hello.setName } : {}) };
}

function releaseOf(versionArray: unknown, version: string): [number, number] {
  if (Array.isArray(versionArray) && versionArray.length >= 2) {
    const [major, minor] = versionArray.map((v) => Number(v));
    if (Number.isFinite(major) && Number.isFinite(minor)) return [major, minor];
  }
  const match = /^(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : [0, 0];
}

function before(release: [number, number], wanted: string): boolean {
  const [major, minor] = wanted.split('.').map(Number);
  return release[0] < major || (release[0] === major && release[1] < minor);
}

/** Throws MongoServerRefusedError when the library cannot run on this server as configured. */
export function checkMongoServer(facts: MongoServerFacts, options: ServerCheckOptions): void {
  const server = `The MongoDB server${options.where ? ` at ${options.where}` : ''}`;
  if (before(facts.release, OLDEST_SUPPORTED_VERSION)) {
    throw new MongoServerRefusedError(
      `${server} runs MongoDB ${facts.version}; this library needs MongoDB ${OLDEST_SUPPORTED_VERSION} or later (found ${facts.version}, needed >= ${OLDEST_SUPPORTED_VERSION}). Upgrade the server.`,
      facts,
    );
  }
  if (facts.topology === 'mongos' && before(facts.release, SHARDED_LOOKUP_VERSION)) {
    throw new MongoServerRefusedError(
      `${server} is a mongos of MongoDB ${facts.version}: this library reads related records with $lookup and $graphLookup, which a sharded cluster runs into sharded collections only from MongoDB ${SHARDED_LOOKUP_VERSION} on (found ${facts.version}, needed >= ${SHARDED_LOOKUP_VERSION} through a mongos). Upgrade the cluster.`,
      facts,
    );
  }
  if (facts.topology === 'standalone' && options.transactions) {
    throw new MongoServerRefusedError(
      `${server} (MongoDB ${facts.version}) is a standalone server, not a replica set: this library runs every write in a transaction, and MongoDB runs transactions only on a replica set (or through a mongos). ` +
        'Make it a one-node replica set: start mongod with --replSet rs0 (or replication.replSetName: rs0 in mongod.conf), run rs.initiate() once (mongosh), and connect with ?replicaSet=rs0. ' +
        'Or declare that this connection writes without transactions, configureMongo(connection, { transactions: false }) from generic-resource-rest/mongo; then a failure midway can leave part of a bulk write written.',
      facts,
    );
  }
}
