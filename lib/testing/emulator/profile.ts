/**
 * Which MongoDB server the emulator plays: a one-member replica set (default) or a standalone
 * mongod, of one release. `hello`/`isMaster`/`buildInfo` answer as that server; a standalone
 * refuses transactions; an older release refuses stages, operators and syntax newer than it
 * (version-gates.ts), so tests prove what a client sends works there.
 */
export type EmulatorTopology = 'replset' | 'standalone';

/** Releases the emulator can play. 4.4 exists to test that a client refuses it. */
export const EMULATOR_VERSIONS = ['4.4', '5.0', '6.0', '7.0', '8.0'] as const;
export type EmulatorVersion = (typeof EMULATOR_VERSIONS)[number];

export interface ServerProfile {
  topology: EmulatorTopology;
  /** Release, `major.minor`. */
  release: EmulatorVersion;
  /** What buildInfo says (`5.0.26`). */
  version: string;
  versionArray: [number, number, number, number];
  maxWireVersion: number;
}

/** A patch release of each line, and its wire version (the server's WireVersion enum). */
const RELEASES: Record<EmulatorVersion, { version: string; wire: number }> = {
  '4.4': { version: '4.4.29', wire: 9 },
  '5.0': { version: '5.0.26', wire: 13 },
  '6.0': { version: '6.0.19', wire: 17 },
  // the emulator's behaviour follows 7.0 (its default); the version string is kept as it always was
  '7.0': { version: '7.0.0', wire: 21 },
  '8.0': { version: '8.0.4', wire: 25 },
};

export const DEFAULT_TOPOLOGY: EmulatorTopology = 'replset';
export const DEFAULT_VERSION: EmulatorVersion = '7.0';

export interface ProfileOptions {
  topology?: string;
  version?: string;
}

/** The profile for the given options; an unknown topology or version is an error naming the accepted ones. */
export function serverProfile(options: ProfileOptions = {}): ServerProfile {
  const topology = (options.topology ?? DEFAULT_TOPOLOGY).trim().toLowerCase();
  if (topology !== 'replset' && topology !== 'standalone') {
    throw new Error(`MongoDB emulator: topology "${options.topology}" is not one it can play (replset or standalone).`);
  }
  const wanted = (options.version ?? DEFAULT_VERSION).trim();
  // `5`, `5.0`, `5.0.26` all mean the 5.0 line
  const release = EMULATOR_VERSIONS.find((v) => wanted === v || wanted === v.split('.')[0] || wanted.startsWith(`${v}.`));
  if (!release) throw new Error(`MongoDB emulator: version "${wanted}" is not one it can play (${EMULATOR_VERSIONS.join(', ')}).`);
  const { version, wire } = RELEASES[release];
  const [major, minor, patch] = version.split('.').map(Number);
  return { topology, release, version, versionArray: [major, minor, patch, 0], maxWireVersion: wire };
}

/** TEST_MONGO_TOPOLOGY and TEST_MONGO_VERSION, under explicit options. */
export function profileFromEnv(options: ProfileOptions = {}): ServerProfile {
  return serverProfile({
    topology: options.topology ?? (process.env.TEST_MONGO_TOPOLOGY || undefined),
    version: options.version ?? (process.env.TEST_MONGO_VERSION || undefined),
  });
}

/** `a` is older than `b` (`major.minor` strings). */
export function olderThan(a: string, b: string): boolean {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am < bm || (am === bm && an < bn);
}
