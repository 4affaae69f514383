import { expect } from 'chai';
import { Binary, Long, ObjectId } from 'bson';
import { EntityMap } from './unified/entities';
import { match, matchRootArray, MatchError } from './unified/matcher';

/** The spec runner's matcher must reject what the unified format rejects, or spec passes mean nothing. */
describe('unified spec runner: matching rules', () => {
  const fails = (expected: unknown, actual: unknown, root = true): void => {
    expect(() => match(expected, actual, {}, root)).to.throw(MatchError);
  };

  it('allows extra fields in root documents only', () => {
    match({ x: 1 }, { x: 1, y: 2 });
    fails({ x: { y: 1 } }, { x: { y: 1, z: 1 } });
    fails({ x: 1, y: 1 }, { x: 1 });
    matchRootArray([{ x: 1 }], [{ x: 1, extra: true }]);
    fails([{ x: 1 }], [{ x: 1, extra: true }]);
  });

  it('compares numbers across int, long and double, and arrays by length', () => {
    match({ n: 1 }, { n: Long.fromNumber(1) });
    fails({ n: 1 }, { n: 1.5 });
    fails([1, 2, 3], [1, 2, 3, 4]);
    fails({ s: '1' }, { s: 1 });
  });

  it('implements $$exists, $$type, $$unsetOrMatches and $$lte', () => {
    match({ a: { $$exists: false } }, { b: 1 });
    fails({ a: { $$exists: true } }, { b: 1 });
    match({ id: { $$type: ['int', 'long'] } }, { id: Long.fromNumber(5) });
    fails({ id: { $$type: 'string' } }, { id: 5 });
    match({ x: { $$unsetOrMatches: 2 } }, {});
    fails({ x: { $$unsetOrMatches: 2 } }, { x: 3 });
    match({ n: { $$lte: 5 } }, { n: 5 });
    fails({ n: { $$lte: 5 } }, { n: 6 });
    fails({ o: { $$matchesHexBytes: 'ab' } }, { o: new Binary(Buffer.from([0xcd])) });
    fails({ o: new ObjectId('000000000000000000000001') }, { o: new ObjectId('000000000000000000000002') });
  });

  it('resolves $$matchesEntity and $$sessionLsid through the entity map', () => {
    const entities = new EntityMap('mongodb://unused');
    entities.save('saved', 42);
    match({ v: { $$matchesEntity: 'saved' } }, { v: 42 }, { entities });
    expect(() => match({ v: { $$matchesEntity: 'saved' } }, { v: 41 }, { entities })).to.throw(MatchError);
    expect(() => match({ v: { $$sessionLsid: 'saved' } }, { v: 42 }, { entities })).to.throw(/not a session/);
  });
});
