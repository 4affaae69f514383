import { stopSharedDatabases } from './databases';

/** Root hooks for every mocha run: shared databases are stopped once, at the very end. */
export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await stopSharedDatabases();
  },
};
