import { EmulatorState } from './commands';
import { profileFromEnv, type EmulatorTopology, type ServerProfile } from './profile';
import { listen } from './server';

export interface EmulatorHandle {
  /**
   * Connection string. As a replica set (default) the driver sees a one-member replica set primary,
   * so sessions and transactions work; as a standalone, a mongod without a replica set.
   */
  uri: string;
  port: number;
  /** The server it plays (topology, release, buildInfo version, wire version). */
  profile: ServerProfile;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  /** `replset` (default) or `standalone`; default TEST_MONGO_TOPOLOGY. */
  topology?: EmulatorTopology;
  /** `5.0`, `6.0`, `7.0` (default), `8.0` (and `4.4`, to test refusing it); default TEST_MONGO_VERSION. */
  version?: string;
  /** TCP port on 127.0.0.1; default 0, a free port. */
  port?: number;
}

export { EMULATOR_VERSIONS, serverProfile, type EmulatorTopology, type EmulatorVersion, type ServerProfile } from './profile';

/** Start an in-memory MongoDB wire-protocol emulator on 127.0.0.1 (free port). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const profile = profileFromEnv(options);
  const state = new EmulatorState(profile);
  const server = await listen(state, options.port ?? 0);
  state.host = `127.0.0.1:${server.port}`;
  let stopped = false;
  const query = profile.topology === 'replset' ? 'replicaSet=rs0&directConnection=true' : 'directConnection=true';
  return {
    uri: `mongodb://127.0.0.1:${server.port}/?${query}`,
    port: server.port,
    profile,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      state.txns.abortAll();
      await server.close();
    },
  };
}
