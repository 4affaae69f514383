export { createClient, ResourceClient, ApiRequestError, type ListOptions, type ReadOptions, type OffsetPage, type CursorPage, type BulkAnswer, type ClientOptions, type ResourceRoutes, type IdOf } from './client';
export { RelationClient, type PivotInput } from './relation-client';
export type { ApiSchema, ResourceTypes, RelationTypes, FieldsOf, RelationsOf, RelationName, RelationPath, RelationItem, CheckRelations, OrderKey, OrderBy, Selected, Loaded } from './resource-types';
export { FilterBuilder, toOper, type FilterFor, type FilterNode, type OperatorFor, type ValueFor } from './filter';
export { generateTypes } from './generate-types';
export type { AggregateFunctions, AggregateItem, AggregateOptions, GroupField, HavingTree, HavingValues, NumericField, OrderedField } from './aggregate';
export { changes, SseParser, type ChangeMessage, type ChangesOptions, type ChangesConnection } from './changes';
export { upsert, updateIfMatch, type UpsertAnswer, type UpsertAction, type WriteHeaders } from './writes';
export { importFile, type ImportFileOptions, type ImportSummary, type ImportProgress, type ImportRowError, type ImportBody } from './import-file';
