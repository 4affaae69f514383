import { expect } from 'chai';
import { bestCaseFold, caseFoldCandidates, lowerSql, PROBE_WORDS } from '../../../drivers/sql/case-fold';

/**
 * The collation of `ilike`'s `lower()` per server (decision 73 on PostgreSQL before 17): the
 * candidates from the version and the collations it has, then the one whose probe follows the
 * rule. The probe answers below are what PostgreSQL 15 on Debian 12 gave (glibc 2.36, ICU 72).
 */
describe('sql case fold: the collation chosen per server', () => {
  const ALL = ['pg_c_utf8', 'C.utf8', 'und-x-icu'];

  it('PostgreSQL 17 and later: the builtin pg_c_utf8, no probe', () => {
    expect(caseFoldCandidates(180001, ALL)).to.deep.equal(['pg_c_utf8']);
    expect(caseFoldCandidates(170000, ['pg_c_utf8'])).to.deep.equal(['pg_c_utf8']);
  });

  it('17 without pg_c_utf8 for the encoding (a LATIN1 database): ICU, then the default', () => {
    expect(caseFoldCandidates(170002, ['und-x-icu'])).to.deep.equal(['und-x-icu', null]);
  });

  it('before 17: libc C.utf8, ICU, then the default, whatever the catalog claims of pg_c_utf8', () => {
    expect(caseFoldCandidates(150004, ALL)).to.deep.equal(['C.utf8', 'und-x-icu', null]);
    expect(caseFoldCandidates(160000, ['und-x-icu', 'C.UTF-8'])).to.deep.equal(['C.UTF-8', 'und-x-icu', null]);
    expect(caseFoldCandidates(130000, [])).to.deep.equal([null]);
  });

  // PROBE_WORDS: 'ÉЖ', 'İ', 'ΑΣ', Kelvin sign, 'ẞ'
  const exact = ['éж', 'i', 'ασ', 'k', 'ß'];
  const icu = ['éж', 'i\u0307', 'ας', 'k', 'ß'];
  const asciiOnly = [...PROBE_WORDS];

  it('the probe picks the collation that lowers by the rule', () => {
    expect(bestCaseFold(['C.utf8', 'und-x-icu', null], [exact, icu, exact])).to.equal('C.utf8');
    expect(bestCaseFold(['C.utf8', 'und-x-icu', null], [asciiOnly, icu, asciiOnly])).to.equal('und-x-icu');
    expect(bestCaseFold(['und-x-icu', null], [icu, exact])).to.equal(null);
    expect(bestCaseFold(['und-x-icu', null], [icu, asciiOnly])).to.equal('und-x-icu');
    expect(bestCaseFold([null], [asciiOnly])).to.equal(null);
  });

  it('a candidate the probe did not answer for counts as folding nothing', () => {
    expect(bestCaseFold(['C.utf8', null], [[], exact])).to.equal(null);
  });

  it('lower() under the collation, the default one being the database\'s, not the column\'s', () => {
    expect(lowerSql('"t0"."name"', 'pg_c_utf8')).to.equal('lower(("t0"."name") COLLATE "pg_c_utf8")');
    expect(lowerSql('"e"."v"', 'und-x-icu')).to.equal('lower(("e"."v") COLLATE "und-x-icu")');
    expect(lowerSql('"t0"."name"', null)).to.equal('lower(("t0"."name") COLLATE "default")');
  });
});
