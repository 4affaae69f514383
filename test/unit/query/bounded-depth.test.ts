import { expect } from 'chai';
import { checkDepth, deeperThan, MAX_BODY_DEPTH, MAX_PARAMETER_DEPTH } from '../../../lib/query/bounded-depth';
import { BadRequestError } from '../../../lib/errors';

/** `levels` nested containers: arrays when `kind` is 'array', objects otherwise, a scalar inside. */
function nested(levels: number, kind: 'array' | 'object' | 'mixed'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) {
    const asArray = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    value = asArray ? [value] : { k: value };
  }
  return value;
}

describe('bounded depth of client values', () => {
  it('counts arrays and objects alike; scalars have no depth', () => {
    for (const kind of ['array', 'object', 'mixed'] as const) {
      expect(deeperThan(nested(3, kind), 3), kind).to.equal(false);
      expect(deeperThan(nested(4, kind), 3), kind).to.equal(true);
    }
    expect(deeperThan('text', 0)).to.equal(false);
    expect(deeperThan(null, 0)).to.equal(false);
  });

  it('finds the deep branch among wide shallow ones', () => {
    const wide = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i, tags: [i] })), deep: nested(10, 'mixed') };
    expect(deeperThan(wide, 11)).to.equal(false);
    expect(deeperThan(wide, 10)).to.equal(true);
  });

  it('measures a hostile 50,000-level value without recursion', () => {
    expect(deeperThan(nested(50_000, 'mixed'), MAX_BODY_DEPTH)).to.equal(true);
  });

  it('checkDepth names the parameter, or the body, that nests too deep', () => {
    expect(() => checkDepth({ relations: 'a,b', oper: nested(MAX_PARAMETER_DEPTH, 'object') }, undefined)).not.to.throw();
    expect(() => checkDepth({ oper: nested(MAX_PARAMETER_DEPTH + 1, 'object') }, undefined))
      .to.throw(BadRequestError, `Parameter "oper" nests deeper than ${MAX_PARAMETER_DEPTH} levels.`);
    expect(() => checkDepth({}, nested(MAX_BODY_DEPTH + 1, 'array'))).to.throw(BadRequestError, `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
    expect(() => checkDepth({}, nested(MAX_BODY_DEPTH, 'array'))).not.to.throw();
  });
});
