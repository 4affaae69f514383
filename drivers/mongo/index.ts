export { createMongoDriver, isMongooseModel, MongoDriver, type MongoTransaction } from './mongo-driver';
export { compileList, type CompiledList } from './compile-list';
export { likeRegex } from './like-pattern';
export type { MongoModelInfo, MongoModelMap } from './model-map';
export type { RelationShape, Shape } from './shape';
