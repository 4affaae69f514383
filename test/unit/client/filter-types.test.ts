import { expect } from 'chai';
import { FilterBuilder, toOper, type FilterFor } from '../../../lib/client';
import type { Api, Product } from '../../../example-app/client-types';

/**
 * The typed filter builder: what it produces is exactly the server's `oper` syntax, and misuse is
 * a compile error (each `@ts-expect-error` line fails `npm run typecheck` if it ever compiles).
 */
describe('typed filter builder', () => {
  const f = new FilterBuilder<Product>();

  it('produces the oper strings the server parses', () => {
    const oper = toOper(f.and(f.where('price', '>=', 10), f.or(f.where('name', 'ilike', '%lamp%'), f.where('status', 'in', ['active', null])), f.notNull('category_id')));
    expect(oper).to.deep.equal({ and: ['price|>=|10', { or: ['name|ilike|%lamp%', 'status|in|["active",null]'] }, 'category_id|not null'] });
    expect(f.where('price', 'between', [1, 5])).to.equal('price|between|[1,5]');
    expect(f.where('featured', '=', true)).to.equal('featured|=|true');
    expect(toOper(f.where('stock', '<', 3))).to.deep.equal({ and: ['stock|<|3'] });
    expect(f.has('reviews', (r: FilterBuilder<{ rating: number }>) => r.where('rating', '>=', 4))).to.deep.equal({ reviews: ['rating|>=|4'] });
  });

  it('typed by the generated entry: has() infers the related resource, relation names are no fields', () => {
    const typed = new FilterBuilder() as FilterFor<Api['products']>;
    expect(typed.has('category', (c) => c.has('parent', (p) => p.where('name', 'like', 'A%')))).to.deep.equal({ category: [{ parent: ['name|like|A%'] }] });
    expect(typed.has('tags', (t) => [t.where('name', '=', 'red'), t.notNull('created_at')])).to.deep.equal({ tags: ['name|=|red', 'created_at|not null'] });
    const compileErrors = (): unknown[] => [
      // @ts-expect-error: a relation is not a field
      typed.where('category', '=', 'x'),
      // @ts-expect-error: no such relation
      typed.has('tagz', () => 'name|=|x'),
      // @ts-expect-error: reviews have no stars
      typed.has('reviews', (r) => r.where('stars', '>', 1)),
    ];
    expect(compileErrors).to.be.a('function');
  });

  it('rejects wrong fields, operators and values at compile time', () => {
    const compileErrors = (): unknown[] => [
      // @ts-expect-error: no such field
      f.where('colour', '=', 'red'),
      // @ts-expect-error: like needs a string field
      f.where('price', 'like', '%1%'),
      // @ts-expect-error: booleans have no order
      f.where('featured', '>', true),
      // @ts-expect-error: a number field takes a number
      f.where('price', '>=', 'ten'),
      // @ts-expect-error: between takes two values
      f.where('price', 'between', [1]),
      // @ts-expect-error: in takes a list
      f.where('price', 'in', 5),
    ];
    expect(compileErrors).to.be.a('function');
  });
});
