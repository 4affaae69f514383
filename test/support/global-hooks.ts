import { stopSharedDatabases } from './databases';

// Database errors are asserted on through responses; their full log lines would drown the output.
process.env.LOG_LEVEL ??= 'silent';

/** Root hooks for every mocha run: shared databases are stopped once, at the very end. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await stopSharedDatabases();
  },
};
