import { expect } from 'chai';
import { BadRequestError, PreconditionRequiredError } from '../../../lib/errors';
import type { ResourceEntry } from '../../../lib/service/declarations/registry';
import { itemVersion, NEVER, readIfMatch, versionTag } from '../../../lib/service/writes/versions';

/** Decision 81: what If-Match asks of a single-record write, and a batch item's version. */
describe('versions (If-Match)', () => {
  const entry = (versionField: string | null, requireIfMatch = false) =>
    ({ info: { versionField }, declaration: { name: 'orders', requireIfMatch } }) as unknown as ResourceEntry;

  it('reads strong tags, their part before the dot, `*`, and never matches weak or foreign tags', () => {
    expect(readIfMatch(entry('version'), '"3"')).to.deep.equal({ kind: 'version', expected: 3 });
    expect(readIfMatch(entry('version'), '"3.abc"')).to.deep.equal({ kind: 'version', expected: 3 });
    expect(readIfMatch(entry('version'), '*')).to.deep.equal({ kind: 'any' });
    expect(readIfMatch(entry('version'), 'W/"3"')).to.deep.equal({ kind: 'version', expected: NEVER });
    expect(readIfMatch(entry('version'), '"abc"')).to.deep.equal({ kind: 'version', expected: NEVER });
    expect(readIfMatch(entry('version'), undefined)).to.deep.equal({ kind: 'none' });
  });

  it('requireIfMatch without the header is a 428; the header without a version field a 400', () => {
    expect(() => readIfMatch(entry('version', true), undefined)).to.throw(PreconditionRequiredError);
    expect(() => readIfMatch(entry(null), '"1"')).to.throw(BadRequestError);
    expect(readIfMatch(entry(null), undefined)).to.deep.equal({ kind: 'none' });
  });

  it('batch items: an integer version is the precondition, anything else never matches, absent is none', () => {
    expect(itemVersion({ version: 2 })).to.equal(2);
    expect(itemVersion({ version: '2' })).to.equal(NEVER);
    expect(itemVersion({})).to.equal(undefined);
    expect(itemVersion({ version: null })).to.equal(undefined);
  });

  it('the tag of a row', () => {
    expect(versionTag(entry('version'), { version: 4 })).to.equal('"4"');
    expect(versionTag(entry(null), { version: 4 })).to.equal(null);
  });
});
