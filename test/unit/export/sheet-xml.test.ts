import { expect } from 'chai';
import { sheetStream } from '../../../lib/export/sheet-stream';
import { SheetRows, columnLetters } from '../../../lib/export/sheet-xml';

/** Row XML written without exceljs's row objects (issue 36). */
describe('sheet xml', () => {
  it('names columns as Excel does', () => {
    const letters = columnLetters(703);
    expect([letters[0], letters[25], letters[26], letters[51], letters[701], letters[702]]).to.deep.equal(['A', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
  });

  it('types cells as exceljs does, escapes text, leaves empty cells out and keeps NaN / Infinity as text', () => {
    const rows = new SheetRows(7, 2, 5, (raw) => raw.slice(0, 20));
    const at = new Date('2026-01-01T12:00:00.000Z');
    expect(rows.row([1, 'a <b> & "c"', true, at, null, { k: 1 }, Number.NaN])).to.equal(
      '<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="str"><v>a &lt;b&gt; &amp; &quot;c&quot;</v></c><c r="C2" t="b"><v>1</v></c>' +
        '<c r="D2" s="5"><v>46023.5</v></c><c r="F2" t="str"><v>{&quot;k&quot;:1}</v></c><c r="G2" t="str"><v>NaN</v></c></row>',
    );
    // the next row is numbered on; the cell text goes through the caller's cleaning (here: cut to 20)
    expect(rows.row(['x'.repeat(30), false, new Date(Number.NaN)])).to.equal(`<row r="3"><c r="A3" t="str"><v>${'x'.repeat(20)}</v></c><c r="B3" t="b"><v>0</v></c></row>`);
  });

  it('declines a sheet that is not exceljs 4 streaming worksheet (the writer then uses exceljs rows)', () => {
    expect(sheetStream({}, {})).to.equal(null);
    expect(sheetStream({ styles: { addStyleModel: () => 1 } }, { startedData: false, _rows: [], stream: { write: () => true } })).to.equal(null);
    expect(sheetStream({ styles: { addStyleModel: () => 1 } }, { startedData: true, _rows: [{}], stream: { write: () => true } })).to.equal(null);
    // not in batch mode: a write would hand on the writer's reused buffer instead of copying it
    expect(sheetStream({ styles: { addStyleModel: () => 1 } }, { startedData: true, _rows: [], stream: { write: () => true } })).to.equal(null);
    expect(sheetStream({ styles: { addStyleModel: () => 1 } }, { startedData: true, _rows: [], stream: { write: () => true, batch: true } })?.dateStyle).to.equal(1);
  });
});
