import { expect } from 'chai';
import { breakLongWords, capText, xmlSafe } from '../../../lib/export/cell-text';
import { contentDisposition, exportFilename } from '../../../lib/export/export-filename';

/** Text made safe for the export writers (issue 28 items 3 and 7). */
describe('export cell text', () => {
  it('xmlSafe removes what XML 1.0 forbids and keeps tab, line breaks, pairs and every other character', () => {
    expect(xmlSafe('a\u0000b\u0001c\u0008d\u000be\u000cf\u001fg\ufffeh\uffffi')).to.equal('abcdefghi');
    expect(xmlSafe('x\ud800y\udc00z')).to.equal('xyz');
    expect(xmlSafe('\udc00\ud800')).to.equal('');
    expect(xmlSafe('t\tl\nc\r 😀 é \u2028 \ufffd \u007f')).to.equal('t\tl\nc\r 😀 é \u2028 \ufffd \u007f');
    const plain = 'nothing to do';
    expect(xmlSafe(plain)).to.equal(plain);
    // the global pattern holds no state between calls
    for (let i = 0; i < 3; i += 1) expect(xmlSafe('a\ufffe')).to.equal('a');
  });

  it('capText cuts with an ellipsis, never inside a surrogate pair', () => {
    expect(capText('abcdef', 6)).to.equal('abcdef');
    expect(capText('abcdefg', 6)).to.equal('abcde…');
    expect(capText('abcdefg', 6)).to.have.length(6);
    expect(capText('abcd😀efg', 6)).to.equal('abcd…');
    expect(xmlSafe(capText('a'.repeat(3) + '😀'.repeat(5), 5))).to.equal(capText('a'.repeat(3) + '😀'.repeat(5), 5));
  });

  it('breakLongWords breaks only words wider than the width, into pieces that fit, keeping every character', () => {
    // the characters measured, not the time taken: a quadratic walk would measure the word again per piece
    let measured = 0;
    const doc = { widthOfString: (text: string) => ((measured += text.length), [...text].length * 5) };
    expect(breakLongWords(doc, 'short words stay as they are', 100)).to.equal('short words stay as they are');
    const word = 'x'.repeat(100_000);
    measured = 0;
    const broken = breakLongWords(doc, `before ${word} after`, 100);
    expect(measured).to.be.at.most(2 * word.length);
    const lines = broken.split('\n');
    expect(lines.join('')).to.equal(`before ${word} after`);
    for (const line of lines) for (const piece of line.split(' ')) expect(piece.length * 5).to.be.at.most(100);
    // a width narrower than one character: one character a line, still linear
    expect(breakLongWords(doc, 'abcd', 1)).to.equal('a\nb\nc\nd');
    expect(breakLongWords(doc, 'a😀b😀', 5)).to.equal('a\n😀\nb\n😀');
  });

  it('a filename with lone surrogates or noncharacters is cleaned, and its Content-Disposition is encodable', () => {
    expect(exportFilename('rep\ud800ort\udc00\ufffe', 'excel.xlsx', 'xlsx')).to.equal('report.xlsx');
    expect(exportFilename('\udc00\ud800', 'excel.xlsx', 'xlsx')).to.equal('excel.xlsx');
    expect(exportFilename(`${'a'.repeat(149)}😀b`, 'excel.xlsx', 'xlsx')).to.equal(`${'a'.repeat(149)}.xlsx`);
    expect(contentDisposition('r (1).pdf')).to.equal(`attachment; filename="r (1).pdf"; filename*=UTF-8''r%20%281%29.pdf`);
    expect(() => contentDisposition(exportFilename('x\ud800', 'pdf_file.pdf', 'pdf'))).to.not.throw();
  });
});
