/**
 * The testing kit's door to the emulator for the CLI (`generic-resource-rest emulator`): nothing
 * outside lib/testing imports the emulator itself (docs/architecture.md).
 */
export { EMULATOR_VERSIONS, startEmulator, type EmulatorHandle, type EmulatorOptions } from './emulator';
