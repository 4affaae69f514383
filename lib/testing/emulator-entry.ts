import type { EmulatorHandle, EmulatorOptions } from './emulator';

/**
 * The testing kit's door to the emulator for the CLI (`generic-resource-rest emulator`): nothing
 * outside lib/testing imports the emulator itself (docs/architecture.md). Light on purpose: the
 * emulator (and mingo, an optional peer) loads only when one is started, so `client` works
 * without it.
 */
export { EMULATOR_VERSIONS } from './emulator/profile';
export type { EmulatorHandle, EmulatorOptions } from './emulator';

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const emulator = await import('./emulator');
  return emulator.startEmulator(options);
}
