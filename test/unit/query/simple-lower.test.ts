import { expect } from 'chai';
import { caselessPrefix, caseVariants, hasCaseVariants, simpleLower } from '../../../lib/query/simple-lower';

/** Decision 73: the one case rule of ilike, Unicode's simple lower case per code point. */
describe('query: simpleLower, the case rule of ilike', () => {
  const lowers: Array<[string, string, string]> = [
    ['ASCII', 'Alpha PHONE 42', 'alpha phone 42'],
    ['Latin accents', 'ÉCOLE Ä Ö Ü Ñ', 'école ä ö ü ñ'],
    ['ß stays itself, ẞ lowers to it (never ss)', 'STRAẞE straße', 'straße straße'],
    ['Greek: Σ is σ everywhere (simple, no final-sigma context); ς stays ς', 'ΟΔΟΣ οδος ΣΣ', 'οδοσ οδος σσ'],
    ['Cyrillic', 'ПРИВЕТ Ёж', 'привет ёж'],
    ['Turkish: İ is i (its simple mapping, not i + dot), I is i, ı stays ı', 'İSTANBUL IŞIK ı', 'istanbul işik ı'],
    ['Kelvin and Ohm signs', 'K Ω', 'k ω'],
    ['titlecase digraph', 'ǅ Ǆ', 'ǆ ǆ'],
    ['supplementary plane (Deseret)', '𐐀𐐁', '𐐨𐐩'],
    ['no case: digits, CJK, emoji', '123 漢字 😀', '123 漢字 😀'],
  ];
  for (const [name, text, lower] of lowers) {
    it(name, () => {
      expect(simpleLower(text)).to.equal(lower);
      expect([...simpleLower(text)]).to.have.length([...text].length);
    });
  }

  it('caseVariants: every character whose lower case is the same', () => {
    expect([...caseVariants('é')].sort()).to.deep.equal(['É', 'é'].sort());
    expect([...caseVariants('É')].sort()).to.deep.equal(['É', 'é'].sort());
    expect([...caseVariants('k')].sort()).to.deep.equal(['K', 'k', '\u212a']);
    expect([...caseVariants('i')].sort()).to.deep.equal(['I', 'i', 'İ'].sort());
    expect([...caseVariants('ß')].sort()).to.deep.equal(['ß', 'ẞ'].sort());
    expect([...caseVariants('σ')].sort()).to.deep.equal(['Σ', 'σ'].sort());
    expect(caseVariants('ς')).to.deep.equal(['ς']);
    expect(caseVariants('ı')).to.deep.equal(['ı']);
    expect(caseVariants('ſ')).to.deep.equal(['ſ']);
    expect(caseVariants('%')).to.deep.equal(['%']);
    expect(caseVariants('7')).to.deep.equal(['7']);
  });

  it('hasCaseVariants and caselessPrefix: what of a pattern only matches itself', () => {
    expect(hasCaseVariants('00_12%')).to.equal(false);
    expect(hasCaseVariants('ς1')).to.equal(false);
    expect(hasCaseVariants('12a')).to.equal(true);
    expect(caselessPrefix('12-Ab%')).to.equal('12-');
    expect(caselessPrefix('%12')).to.equal('');
    expect(caselessPrefix('1_2')).to.equal('1');
    expect(caselessPrefix('Ab')).to.equal('');
  });
});
