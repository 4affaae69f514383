export { createRestApi, type RestApi, type RestApiOptions, type RegisterOptions } from './api';
export type { ResourceDeclaration, RelationDeclaration } from './resource/declaration';
export type { ModelInfo, FieldInfo, RelationInfo, Catalog } from './resource/model-info';
export type { Driver, Row, Id } from '../drivers/driver';
export * from './errors';
export { configFromEnv, type RestConfig } from './config';
export { createMongoDriver } from '../drivers/mongo';
export { createSqlDriver } from '../drivers/sql';
