export * from './api-error';
export * from './validation-error';
export * from './database-error';
export * from './catalogue';
