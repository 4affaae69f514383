import { expect } from 'chai';
import { BadRequestError } from '../../../lib/errors';
import { parseReadOptions } from '../../../lib/query/parse-list-query';
import { openPolicy, type AccessPolicy } from '../../../lib/service/policy/access-policy';
import { QueryPipeline } from '../../../lib/service/policy/query-pipeline';
import { createContext } from '../../../lib/service/request-context';
import { fixtureCatalog, testConfig } from '../../support/example-catalog';

/** A policy hiding `sku` of products from the role `viewer`; everyone else sees everything. */
function viewerPolicy(asked: unknown[]): AccessPolicy {
  return {
    ...openPolicy,
    hiddenFields: (model, ctx) => {
      asked.push(ctx);
      return new Set(ctx.roles.includes('viewer') && model.name === 'product' ? ['sku'] : []);
    },
    viewKey: (ctx) => [...ctx.roles].sort().join(','),
  };
}

/** The catalog views requests parse against: one per view key, so what is cached per view is found again. */
describe('catalog views, one per kind of caller', () => {
  const config = testConfig();
  const request = (roles: string[]) => createContext({ roles, locals: { request: roles.join() } });

  it('requests with the same view key get the same view, and their parsed relations are parsed once', () => {
    const pipeline = new QueryPipeline(fixtureCatalog());
    pipeline.setPolicy(viewerPolicy([]));
    const first = pipeline.viewOf(request(['viewer']));
    expect(pipeline.viewOf(request(['viewer']))).to.equal(first);
    expect(pipeline.viewOf(request(['editor']))).to.not.equal(first);
    const parse = (view: typeof first) => parseReadOptions({ relations: 'category', select: 'name' }, view.model('product'), view, config);
    expect(parse(pipeline.viewOf(request(['viewer'])))).to.equal(parse(first));
  });

  it('the open view (nothing restricted) is one object too', () => {
    const pipeline = new QueryPipeline(fixtureCatalog());
    const view = pipeline.viewOf(request([]));
    expect(view.open).to.equal(true);
    expect(pipeline.viewOf(request(['anything']))).to.equal(view);
  });

  it('a restricted view still hides what it hides, for every request that shares it, without keeping their contexts', () => {
    const asked: unknown[] = [];
    const pipeline = new QueryPipeline(fixtureCatalog());
    pipeline.setPolicy(viewerPolicy(asked));
    const first = request(['viewer']);
    for (const ctx of [first, request(['viewer'])]) {
      const view = pipeline.viewOf(ctx);
      expect(() => parseReadOptions({ select: 'sku' }, view.model('product'), view, config)).to.throw(BadRequestError, /sku/);
    }
    expect(asked.length).to.be.greaterThan(0);
    expect(asked).to.not.include(first);
    expect(pipeline.viewOf(request(['editor'])).model('product').fields.sku.writeOnly).to.equal(false);
  });

  it('a new policy gives new views', () => {
    const pipeline = new QueryPipeline(fixtureCatalog());
    pipeline.setPolicy(viewerPolicy([]));
    const before = pipeline.viewOf(request(['viewer']));
    pipeline.setPolicy(openPolicy);
    const after = pipeline.viewOf(request(['viewer']));
    expect(after).to.not.equal(before);
    expect(after.model('product').fields.sku.writeOnly).to.equal(false);
  });
});
