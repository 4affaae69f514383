/**
 * `generic-resource-rest emulator`: the testing kit's MongoDB emulator as a server process.
 *
 *   npx generic-resource-rest emulator --port 27017 [--topology replset|standalone] [--version 4.4|5.0|6.0|7.0|8.0]
 *
 * Prints the connection string as its first line on stdout, serves until SIGTERM or SIGINT (or,
 * when forked by startMongo({process: 'child'}), until its parent's IPC channel closes), then
 * closes its connections and exits 0. All data is in this process's memory and gone when it ends.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './client-command';
import type { CliIo } from './cli-io';
import { EMULATOR_VERSIONS, startEmulator } from '../testing/emulator-entry';
import { missingPackage } from './missing-package';

/** The optional peers the emulator is built on (the testing kit's dev dependencies). */
export const EMULATOR_PACKAGES = ['bson', 'mingo'] as const;

/** What to say when the emulator cannot load: the package missing and the command that installs them all. */
export function emulatorLoadError(error: unknown): Error {
  const pkg = missingPackage(error);
  if (!pkg) return error instanceof Error ? error : new Error(String(error));
  return new Error(`emulator: the ${pkg} package is not installed; the emulator needs ${EMULATOR_PACKAGES.join(' and ')}: npm install --save-dev ${EMULATOR_PACKAGES.join(' ')}`);
}

export const EMULATOR_USAGE = `  emulator [--port <n>] [--topology replset|standalone] [--version 4.4|5.0|6.0|7.0|8.0]
      Serves the testing kit's in-memory MongoDB emulator on 127.0.0.1 until SIGTERM/SIGINT;
      prints its connection string first. Data lives in memory and ends with the process.
      Needs the bson and mingo packages (npm install --save-dev bson mingo).
      --port      TCP port (default 27017; 0 picks a free one)
      --topology  replset (default: a one-member replica set rs0) or standalone
      --version   the MongoDB release to play: 5.0, 6.0, 7.0 (default) or 8.0; 4.4 plays a
                  server older than the library supports, which it refuses at start
      Defaults come from TEST_MONGO_TOPOLOGY / TEST_MONGO_VERSION when set.
`;

export interface EmulatorArgs {
  help: boolean;
  port: number;
  topology?: 'replset' | 'standalone';
  version?: string;
}

export function parseEmulatorArgs(args: string[]): EmulatorArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        topology: { type: 'string' },
        version: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(`emulator: ${(error as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, port: 0 };
  if (positionals.length > 0) throw new UsageError(`emulator: unexpected argument "${positionals[0]}".`);
  let port = 27017;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`emulator: --port ${values.port} is not a TCP port (0-65535).`);
  }
  const topology = values.topology;
  if (topology !== undefined && topology !== 'replset' && topology !== 'standalone') throw new UsageError(`emulator: --topology ${topology} is not replset or standalone.`);
  const version = values.version;
  if (version !== undefined) {
    const known = (EMULATOR_VERSIONS as readonly string[]).includes(version) || EMULATOR_VERSIONS.some((v) => version === v.split('.')[0] || version.startsWith(`${v}.`));
    if (!known) throw new UsageError(`emulator: --version ${version} is not one the emulator plays (${EMULATOR_VERSIONS.join(', ')}).`);
  }
  return { help: false, port, topology, version };
}

/**
 * Runs the emulator until a signal; resolves to the exit code. `until` replaces the wait for
 * SIGTERM/SIGINT and `start` the emulator's loader (tests).
 */
export async function runEmulatorCommand(args: string[], io: CliIo, usage: string, until?: Promise<unknown>, start: typeof startEmulator = startEmulator): Promise<number> {
  const options = parseEmulatorArgs(args);
  if (options.help) {
    io.out(usage);
    return 0;
  }
  // the emulator loads on first use: a missing optional peer shows here, named with its install command
  const emulator = await start({ port: options.port, topology: options.topology, version: options.version }).catch((error: unknown) => {
    throw emulatorLoadError(error);
  });
  io.out(`${emulator.uri}\n`);
  io.err(`MongoDB emulator playing MongoDB ${emulator.profile.version} as a ${emulator.profile.topology === 'standalone' ? 'standalone server' : 'one-member replica set (rs0)'} on 127.0.0.1:${emulator.port}; SIGTERM or SIGINT stops it.\n`);
  await (until ??
    new Promise<void>((resolve) => {
      const done = (): void => {
        process.off('SIGTERM', done);
        process.off('SIGINT', done);
        process.off('disconnect', done);
        resolve();
      };
      process.once('SIGTERM', done);
      process.once('SIGINT', done);
      // forked by startMongo({process: 'child'}): a parent that goes away takes the emulator with it
      if (process.send) process.once('disconnect', done);
    }));
  await emulator.stop();
  // the IPC channel of a forked emulator would keep the process alive
  if (until === undefined && process.connected) process.disconnect();
  return 0;
}
