import type { PdfDocument } from './pdf-document';

export type { PdfDocument, PdfTextOptions } from './pdf-document';

/**
 * How a PDF template draws an export: the document (pdfkit's) is created and streamed by the
 * library. `Doc` is how the template types it: the part of pdfkit the package describes by
 * default, `PDFKit.PDFDocument` with @types/pdfkit for the whole API.
 */
export interface PdfTemplate<Doc extends PdfDocument = PdfDocument> {
  /** Landscape pages for this many columns (default: more than 6). */
  landscape?(columnCount: number): boolean;
  begin(doc: Doc, headers: string[]): void;
  row(doc: Doc, cells: string[]): void;
  end?(doc: Doc, rowCount: number): void;
}

/**
 * The default template `pdf`: a table with the header row repeated on every page, wrapped cell
 * text, zebra rows and `Page N` at the foot of each page.
 */
export function tableTemplate(): PdfTemplate {
  let headers: string[] = [];
  let widths: number[] = [];
  let page = 0;
  const pad = 3;
  const font = 8;

  const footer = (doc: PdfDocument): void => {
    page += 1;
    const { bottom, left } = doc.page.margins;
    const y = doc.page.height - bottom + 12;
    // below the bottom margin pdfkit would start a new page: lift the margin while drawing the footer
    doc.page.margins.bottom = 0;
    doc.fontSize(7).fillColor('#666').text(`Page ${page}`, left, y, { width: doc.page.width - left * 2, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
    doc.fillColor('black');
  };

  const drawRow = (doc: PdfDocument, cells: string[], bold: boolean, shade: boolean): void => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(font);
    const heights = cells.map((text, i) => doc.heightOfString(text, { width: widths[i] - pad * 2 }));
    const height = Math.max(font + 2, ...heights) + pad * 2;
    const bottom = doc.page.height - doc.page.margins.bottom;
    if (doc.y + height > bottom && !bold) {
      doc.addPage();
    }
    const top = doc.y;
    let x = doc.page.margins.left;
    if (shade || bold) doc.rect(x, top, widths.reduce((a, b) => a + b, 0), height).fill(bold ? '#dde3ea' : '#f5f7f9').fillColor('black');
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(font);
    cells.forEach((text, i) => {
      doc.text(text, x + pad, top + pad, { width: widths[i] - pad * 2 });
      x += widths[i];
    });
    doc.x = doc.page.margins.left;
    doc.y = top + height;
  };

  let shade = false;
  return {
    landscape: (n) => n > 6,
    begin(doc, names) {
      headers = names;
      const usable = doc.page.width - doc.page.margins.left - doc.page.margins.right;
      widths = headers.map(() => usable / headers.length);
      doc.on('pageAdded', () => {
        footer(doc);
        doc.y = doc.page.margins.top;
        drawRow(doc, headers, true, false);
      });
      footer(doc);
      doc.y = doc.page.margins.top;
      drawRow(doc, headers, true, false);
    },
    row(doc, cells) {
      shade = !shade;
      drawRow(doc, cells, false, shade);
    },
  };
}
