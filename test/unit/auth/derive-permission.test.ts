import { expect } from 'chai';
import { controllerPermission, derivePermission, permissionTarget, singular, splitPermissions, verbPermission } from '../../../lib/auth/derive-permission';

describe('permission derivation (the spec\'s four steps)', () => {
  const facts = { httpMethod: 'GET', path: '/products/1' };

  it('1. a route override wins over everything, as a string, an array or pipe-separated', () => {
    expect(derivePermission({ ...facts, name: 'products.show' }, { permissions: 'a.view|b.view' }, { 'products.show': 'x.view' })).to.deep.equal({ permissions: ['a.view', 'b.view'], mode: 'any', source: 'override' });
    expect(derivePermission(facts, { permissions: ['a.view', 'b.update|c.delete'], mode: 'all' }, {})).to.deep.equal({ permissions: ['a.view', 'b.update', 'c.delete'], mode: 'all', source: 'override' });
    // an empty override falls through to the next step
    expect(derivePermission({ ...facts, name: 'products.show' }, { permissions: ' | ' }, {}).source).to.equal('route name');
  });

  it('2. the route name convention: the spec\'s table and every other generated route', () => {
    const byName = (name: string) => derivePermission({ ...facts, name }, undefined, {}).permissions;
    expect(byName('products.index')).to.deep.equal(['products.index']);
    expect(byName('products.show')).to.deep.equal(['products.view']);
    expect(byName('products.store')).to.deep.equal(['products.store']);
    expect(byName('products.update')).to.deep.equal(['products.update']);
    expect(byName('products.destroy')).to.deep.equal(['products.delete']);
    expect(byName('products.first')).to.deep.equal(['products.index']);
    expect(byName('products.validate')).to.deep.equal(['products.store']);
    expect(byName('products.updatePatch')).to.deep.equal(['products.update']);
    expect(byName('products.updateMultiple')).to.deep.equal(['products.update']);
    expect(byName('products.updateMultipleAlias')).to.deep.equal(['products.update']);
    expect(byName('reviews.restore')).to.deep.equal(['reviews.update']);
    expect(byName('products.deleteById')).to.deep.equal(['products.delete']);
    expect(byName('reviews.forceDelete')).to.deep.equal(['reviews.delete']);
    expect(byName('products.exportExcel')).to.deep.equal(['products.index']);
    expect(byName('products.exportPdf')).to.deep.equal(['products.index']);
  });

  it('2. the permission map\'s overrides come before the convention; a relation route\'s named permissions are all required', () => {
    expect(derivePermission({ ...facts, name: 'products.index' }, undefined, { 'products.index': 'catalog.view' }).permissions).to.deep.equal(['catalog.view']);
    const relation = derivePermission({ ...facts, name: 'products.tags.store', namedPermissions: ['tags.store', 'products.update'] }, undefined, {});
    expect(relation).to.deep.equal({ permissions: ['tags.store', 'products.update'], mode: 'all', source: 'route name' });
  });

  it('3. the controller convention, then 4. verb and first segment', () => {
    expect(controllerPermission('ProductsController', 'store')).to.equal('product.create');
    expect(controllerPermission('CategoryController', 'index')).to.equal('category.view');
    expect(controllerPermission('ReportController', 'publish')).to.equal(null);
    expect(derivePermission({ httpMethod: 'POST', path: '/x', controller: 'TagsController', method: 'destroy' }, undefined, {})).to.deep.equal({ permissions: ['tag.delete'], mode: 'any', source: 'controller' });
    expect(verbPermission('GET', '/reports/7')).to.equal('report.view');
    expect(verbPermission('POST', '/categories')).to.equal('category.create');
    expect(verbPermission('PUT', '/boxes/1')).to.equal('box.update');
    expect(verbPermission('PATCH', '/addresses/1')).to.equal('address.update');
    expect(verbPermission('DELETE', '/users/1')).to.equal('user.delete');
    expect(derivePermission({ httpMethod: 'DELETE', path: '/reports/1' }, undefined, {})).to.deep.equal({ permissions: ['report.delete'], mode: 'any', source: 'verb' });
    // a route name outside the convention falls through
    expect(derivePermission({ httpMethod: 'GET', path: '/stats', name: 'stats' }, undefined, {}).source).to.equal('verb');
  });

  it('splits, singularizes and maps permissions to grant actions', () => {
    expect(splitPermissions(['a|b', ' c '])).to.deep.equal(['a', 'b', 'c']);
    expect(['categories', 'boxes', 'classes', 'users', 'status'].map(singular)).to.deep.equal(['category', 'box', 'class', 'user', 'status']);
    expect(permissionTarget('products.view')).to.deep.equal({ resource: 'products', action: 'read' });
    expect(permissionTarget('products.index')).to.deep.equal({ resource: 'products', action: 'read' });
    expect(permissionTarget('product.create')).to.deep.equal({ resource: 'product', action: 'create' });
    expect(permissionTarget('products.store')).to.deep.equal({ resource: 'products', action: 'create' });
    expect(permissionTarget('products.delete')).to.deep.equal({ resource: 'products', action: 'delete' });
    expect(permissionTarget('products.publish')).to.equal(null);
    expect(permissionTarget('nodot')).to.equal(null);
  });
});
