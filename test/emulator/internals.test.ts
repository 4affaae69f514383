import { expect } from 'chai';
import { ObjectId } from 'bson';
import { aggregate } from '../../lib/testing/emulator/engine';
import { Store } from '../../lib/testing/emulator/store';
import { TransactionManager } from '../../lib/testing/emulator/transactions';
import { Scope } from '../../lib/testing/emulator/scope';
import { keyOf } from '../../lib/testing/emulator/values';

/** White-box checks of the emulator's workarounds for mingo and of its lock table. */
describe('emulator internals', () => {
  it('keyOf treats equal ObjectIds/Dates as one key', () => {
    const id = new ObjectId();
    expect(keyOf(new ObjectId(id.toHexString()))).to.equal(keyOf(id));
    expect(keyOf(new Date(5))).to.equal(keyOf(new Date(5)));
    expect(keyOf(1)).to.not.equal(keyOf('1'));
  });

  it('aggregate never mutates its input (mingo mutates nested $set in CLONE_OFF) and $count on empty input yields nothing', () => {
    const stored = [{ _id: 1, a: { b: 1 } }];
    aggregate(stored, [{ $set: { 'a.b': 2 } }], () => []);
    expect(stored[0].a.b).to.equal(1);
    expect(aggregate([], [{ $count: 'n' }], () => [])).to.deep.equal([]);
    expect(aggregate([], [{ $facet: { c: [{ $count: 'n' }] } }], () => [])).to.deep.equal([{ c: [] }]);
  });

  it('a non-transactional write to a document locked by an open transaction is a WriteConflict', () => {
    const store = new Store();
    const txns = new TransactionManager(store);
    const coll = store.ensure('db', 'c').coll;
    new Scope(store, txns).write(coll, keyOf(1), { _id: 1 }, true);
    const txn = txns.start('s1', 1);
    new Scope(store, txns, txn).write(coll, keyOf(1), { _id: 1, v: 1 }, false);
    expect(() => new Scope(store, txns).write(coll, keyOf(1), { _id: 1, v: 2 }, false)).to.throw(/Write conflict/);
    txns.commit(txn);
    new Scope(store, txns).write(coll, keyOf(1), { _id: 1, v: 3 }, false);
    expect(coll.docs.get(keyOf(1))).to.deep.equal({ _id: 1, v: 3 });
  });
});
