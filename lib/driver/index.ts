export * from './types';
export { type DriverFactory, registerDriver, defineDriverFactory } from './load-driver';
export { capabilitiesOf, type DriverCapabilities } from './capabilities';
