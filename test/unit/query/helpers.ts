import { expect } from 'chai';
import type { RestConfig } from '../../../lib/config';
import { BadRequestError } from '../../../lib/errors';
import { parseListQuery, parseReadOptions, type ParsedListQuery } from '../../../lib/query';
import type { Filter, RelationLoad, Scalar } from '../../../lib/query/ast';
import type { IdType } from '../../../lib/resource/model-info';
import { fixtureCatalog, testConfig } from '../../support/example-catalog';

export interface ListOptions {
  model?: string;
  config?: Partial<RestConfig>;
  idType?: IdType;
  forFirst?: boolean;
}

export function list(params: Record<string, unknown>, options: ListOptions = {}): ParsedListQuery {
  const catalog = fixtureCatalog(options.idType);
  return parseListQuery(params, catalog.model(options.model ?? 'product'), catalog, testConfig(options.config), { forFirst: options.forFirst });
}

export function read(params: Record<string, unknown>, options: ListOptions = {}) {
  const catalog = fixtureCatalog(options.idType);
  return parseReadOptions(params, catalog.model(options.model ?? 'product'), catalog, testConfig(options.config));
}

/** Runs `work`, expecting a BadRequestError whose message includes every fragment. */
export function expectBadRequest(work: () => unknown, ...fragments: string[]): BadRequestError {
  let error: unknown;
  try {
    work();
  } catch (e) {
    error = e;
  }
  expect(error, 'expected a BadRequestError').to.be.instanceOf(BadRequestError);
  const bad = error as BadRequestError;
  expect(bad.status).to.equal(400);
  for (const f of fragments) expect(bad.message).to.include(f);
  return bad;
}

export const cond = (field: string, operator: string, value?: Scalar | Scalar[]): Filter =>
  (value === undefined ? { kind: 'condition', field, operator } : { kind: 'condition', field, operator, value }) as Filter;
export const and = (...filters: Filter[]): Filter => ({ kind: 'and', filters });
export const or = (...filters: Filter[]): Filter => ({ kind: 'or', filters });
export const related = (relation: string, filter: Filter | null): Filter => ({ kind: 'related', relation, filter });
export const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = [], filter: Filter | null = null): RelationLoad =>
  ({ name, columns, children, filter });

/** The filter of a single oper condition on products (or another model). */
export function operFilter(oper: unknown, options: ListOptions = {}): Filter | null {
  return list({ oper }, options).filter;
}
