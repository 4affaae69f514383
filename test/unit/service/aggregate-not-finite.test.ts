import { expect } from 'chai';
import { ValidationError } from '../../../lib/errors';
import type { AggregateQuery } from '../../../lib/query/aggregate-ast';
import { aggregateEnvelope } from '../../../lib/service/reads/aggregate';

/** Decision 74: a driver's non-finite sum or average becomes a 422 naming `fn.field`, never null in the answer. */
describe('service: aggregate results that are not finite numbers', () => {
  const query: AggregateQuery = {
    model: 'product',
    filter: null,
    groups: [{ name: 'status', relations: [], field: 'status' }],
    measures: [{ fn: 'count', field: null }, { fn: 'sum', field: 'price' }, { fn: 'avg', field: 'cost' }],
    order: [],
    page: { kind: 'offset', page: 1, size: 10 },
  };

  const cases: Array<{ name: string; values: unknown[]; path: string }> = [
    { name: 'a sum of +Infinity', values: [2, Infinity, 1], path: 'sum.price' },
    { name: 'a sum of -Infinity', values: [2, -Infinity, 1], path: 'sum.price' },
    { name: 'an average that is NaN (MongoDB\'s overflowing double-double sum)', values: [2, 3, NaN], path: 'avg.cost' },
  ];
  for (const c of cases) {
    it(`${c.name} is a 422 naming ${c.path}`, () => {
      let error: unknown;
      try {
        aggregateEnvelope(query, { rows: [{ group: ['active'], values: [1, 1, 1] }, { group: ['draft'], values: c.values }], total: 2 });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ValidationError);
      const validation = error as ValidationError;
      expect(validation.status).to.equal(422);
      expect(Object.keys(validation.errors)).to.deep.equal([c.path]);
      expect(validation.message).to.include(c.path);
    });
  }

  it('finite values, the largest double included, and nulls answer as before', () => {
    const envelope = aggregateEnvelope(query, { rows: [{ group: ['active'], values: [2, Number.MAX_VALUE, null] }, { group: ['draft'], values: [1, -Number.MAX_VALUE, 0.5] }], total: 2 });
    expect(envelope.data).to.deep.equal([
      { group: { status: 'active' }, count: 2, sum: { price: Number.MAX_VALUE }, avg: { cost: null } },
      { group: { status: 'draft' }, count: 1, sum: { price: -Number.MAX_VALUE }, avg: { cost: 0.5 } },
    ]);
  });
});
