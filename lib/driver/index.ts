export * from './types';
export { type DriverFactory, registerDriver, driverFor, defineDriverFactory } from './load-driver';
