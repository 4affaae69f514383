import { expect } from 'chai';
import type { Driver } from '../../../lib/driver';
import type { ModelInfo, RelationInfo } from '../../../lib/resource/model-info';
import { resolveNested } from '../../../lib/service/nested/nested-config';
import type { ResourceService } from '../../../lib/service/resource-service';

const pivot = { table: 'product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: {} };
const relations: Record<string, RelationInfo> = {
  category: { name: 'category', kind: 'belongsTo', target: 'category', foreignKey: 'category_id' },
  reviews: { name: 'reviews', kind: 'hasMany', target: 'review', foreignKey: 'product_id' },
  tags: { name: 'tags', kind: 'belongsToMany', target: 'tag', foreignKey: 'product_id', pivot },
  byCode: { name: 'byCode', kind: 'hasMany', target: 'review', foreignKey: 'code', localKey: 'sku' },
  remote: { name: 'remote', kind: 'hasMany', target: 'remote', foreignKey: 'product_id' },
};
const driver = { kind: 'sql', pivots: {} } as unknown as Driver;
const other = { kind: 'mongo' } as unknown as Driver;
const service = (name: string, nestedWrites: unknown[] = [], on: Driver = driver) =>
  ({ name, entry: { info: { name, key: 'id', relations: name === 'product' ? relations : {}, hiddenRelations: {} } as unknown as ModelInfo, declaration: { name: `${name}s`, nestedWrites }, driver: on } }) as unknown as ResourceService;
const services: Record<string, ResourceService> = { review: service('review'), tag: service('tag'), remote: service('remote', [], other) };
const resolve = (nestedWrites: unknown[]) => resolveNested(service('product', nestedWrites), (m) => services[m]);

describe('nested-config: nestedWrites resolved at start', () => {
  it('hasMany and belongsToMany relations; pivot columns all by default, narrowed by the object form', () => {
    const resolved = resolve(['reviews', { relation: 'tags', pivotColumns: ['position'] }]);
    expect(resolved.get('reviews')).to.include({ kind: 'oneToMany', foreignKey: 'product_id' });
    expect(resolved.get('tags')!.writablePivot).to.deep.equal(['position']);
    expect(resolve(['tags']).get('tags')!.writablePivot).to.deep.equal(['position', 'note']);
  });

  const refused: Array<[string, unknown[], RegExp]> = [
    ['an unknown relation', ['nope'], /nestedWrites\.0: "nope" is not a relation of product/],
    ['a belongsTo relation', ['reviews', 'category'], /nestedWrites\.1: "category" is a belongsTo relation/],
    ['a hasMany on another key column', ['byCode'], /links on sku/],
    ['an unknown pivot column', [{ relation: 'tags', pivotColumns: ['rank'] }], /pivotColumns rank not among/],
    ['a target on another driver', ['remote'], /another driver or connection/],
  ];
  for (const [what, declared, message] of refused) {
    it(`a start-up error naming the key: ${what}`, () => {
      expect(() => resolve(declared)).to.throw(message);
    });
  }
});
