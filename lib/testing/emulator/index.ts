import { EmulatorState } from './commands';
import { listen } from './server';

export interface EmulatorHandle {
  /** Connection string; the driver sees a one-member replica set primary, so sessions/transactions work. */
  uri: string;
  port: number;
  stop(): Promise<void>;
}

/** Start an in-memory MongoDB wire-protocol emulator on 127.0.0.1 (free port). */
export async function startEmulator(): Promise<EmulatorHandle> {
  const state = new EmulatorState();
  const server = await listen(state);
  state.host = `127.0.0.1:${server.port}`;
  let stopped = false;
  return {
    uri: `mongodb://127.0.0.1:${server.port}/?replicaSet=rs0&directConnection=true`,
    port: server.port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      state.txns.abortAll();
      await server.close();
    },
  };
}
