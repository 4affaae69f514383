/** The request-parameter parser: raw request parameters -> checked, typed query descriptions. */
export { mergeParams, type RequestParams } from './merge-params';
export { parseListQuery, parseReadOptions, withTrashed, type ParsedListQuery } from './parse-list-query';
export { encodeCursor } from './cursor';
export { readBoolean } from './read-boolean';
