import { expect } from 'chai';
import type { Filter, ListQuery, OrderKey } from '../../../lib/query/ast';
import { applyScopes } from '../../../lib/query/transforms/apply-scopes';

const targets: Record<string, Record<string, string>> = { review: { user: 'user', product: 'product' }, product: { category: 'category' } };
const targetOf = (model: string, relation: string): string => targets[model][relation];
const mine: Filter = { kind: 'condition', field: 'id', operator: '=', value: 7 };
const scopeOf = (model: string): Filter | null => (model === 'user' ? mine : null);
const query = (order: OrderKey[]): ListQuery => ({ model: 'review', filter: null, select: null, relations: [], order, page: null, limit: null });

describe('query: applyScopes on sort keys', () => {
  it('a key through a scoped relation carries the scope of each step', () => {
    const [key] = applyScopes(query([{ relations: ['user'], field: 'name', direction: 'asc' }]), scopeOf, targetOf).order;
    expect(key.scopes).to.deep.equal([mine]);
  });

  it('keys through unscoped relations and root keys are unchanged (same object)', () => {
    const plain: OrderKey = { relations: ['product', 'category'], field: 'name', direction: 'desc' };
    const root: OrderKey = { relations: [], field: 'id', direction: 'asc' };
    const out = applyScopes(query([plain, root]), scopeOf, targetOf).order;
    expect(out[0]).to.equal(plain);
    expect(out[1]).to.equal(root);
  });
});
