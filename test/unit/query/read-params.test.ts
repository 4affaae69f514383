import { expect } from 'chai';
import { BadRequestError } from '../../../lib/errors';
import { readParams } from '../../../lib/query/read-params';

const accepted = { own: ['oper', 'pagination'], app: new Set(['tenant']) };

describe('query: readParams, a route\'s parameters from its request', () => {
  it('reads bracket notation from the URL as the JSON form means it, and keeps the app\'s own names', () => {
    const params = readParams({ url: '/products?oper%5Band%5D%5B0%5D=name%7Clike%7CA%25&tenant=7', body: undefined }, accepted, true);
    expect(params.oper).to.deep.equal({ and: ['name|like|A%'] });
    expect(params.tenant).to.equal('7');
  });

  it('a read\'s JSON body carries parameters and is checked; a write\'s body is its data and is not', () => {
    expect(() => readParams({ url: '/products', body: { limit: 5 } }, accepted, true)).to.throw(BadRequestError, /Unknown parameter "limit"\. Accepted: oper, pagination, tenant/);
    expect(() => readParams({ url: '/products', body: { limit: 5 } }, accepted, false)).not.to.throw();
  });

  it('an unknown query parameter is a 400 naming it even on a write; a route the table does not know is not checked', () => {
    expect(() => readParams({ url: '/products?sort=name', body: {} }, accepted, false)).to.throw(BadRequestError, /"sort"/);
    expect(readParams({ url: '/products?sort=name', body: undefined }, null, true).sort).to.equal('name');
  });

  it('a body nested deeper than the bound is refused before anything recurses into it', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i += 1) deep = { a: deep };
    expect(() => readParams({ url: '/products', body: { oper: deep } }, accepted, true)).to.throw(BadRequestError);
  });
});
