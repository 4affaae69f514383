export { createClient, ResourceClient, RelationClient, ApiRequestError, type ApiSchema, type ResourceTypes, type ListOptions, type OffsetPage, type ClientOptions, type PivotInput, type IdOf } from './client';
export { FilterBuilder, toOper, type FilterNode, type OperatorFor, type ValueFor } from './filter';
export { generateTypes } from './generate-types';
export type { AggregateFunctions, AggregateItem, AggregateOptions, GroupField, NumericField, OrderedField } from './aggregate';
export { changes, SseParser, type ChangeMessage, type ChangesOptions, type ChangesConnection } from './changes';
export { upsert, updateIfMatch, type UpsertAnswer, type UpsertAction, type WriteHeaders } from './writes';
