import { expect } from 'chai';
import { parseReadOptions } from '../../../lib/query/parse-list-query';
import { BadRequestError } from '../../../lib/errors';
import { fixtureCatalog, testConfig } from '../../support/example-catalog';

/** parseReadOptions parses a request shape once per settings and catalog view. */
describe('parsed select and relations, per request shape', () => {
  const catalog = fixtureCatalog();
  const config = testConfig();
  const read = (params: Record<string, unknown>, c = catalog, cfg = config) => parseReadOptions(params, c.model('product'), c, cfg);

  it('the same text in the same view gives the same frozen answer; other text, view or settings their own', () => {
    const first = read({ relations: 'category.parent,reviews', select: 'name' });
    expect(read({ relations: 'category.parent,reviews', select: 'name' })).to.equal(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.relations) && Object.isFrozen(first.relations[0])).to.equal(true);
    expect(read({ relations: 'category', select: 'name' })).to.not.equal(first);
    expect(read({ relations: 'category.parent,reviews' })).to.not.equal(first);
    expect(read({ relations: 'category.parent,reviews', select: 'name' }, fixtureCatalog())).to.not.equal(first);
    expect(read({ relations: 'category.parent,reviews', select: 'name' }, catalog, testConfig())).to.deep.equal(first);
    expect(read({ relations: 'category.parent,reviews', select: 'name' }, catalog, testConfig())).to.not.equal(first);
  });

  it('a refused parameter is refused every time (errors are not cached); non-text parameters are parsed each time', () => {
    for (let i = 0; i < 2; i += 1) expect(() => read({ relations: 'nope' })).to.throw(BadRequestError);
    const params = { relations: ['category'] as unknown };
    expect(read(params)).to.not.equal(read(params));
  });
});
