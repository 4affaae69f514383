export * from './types';
export { type DriverFactory, registerDriver, defineDriverFactory } from './load-driver';
