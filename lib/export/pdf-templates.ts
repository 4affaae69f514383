import { breakLongWords } from './cell-text';
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
  let headerHeight = 0;
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
    // words wider than their column broken beforehand (pdfkit's own cutting is quadratic)
    const texts = cells.map((text, i) => breakLongWords(doc, text, widths[i] - pad * 2));
    const heights = texts.map((text, i) => doc.heightOfString(text, { width: widths[i] - pad * 2 }));
    // a row is never taller than a page under its header row: longer cells end with an ellipsis
    const tallest = doc.page.height - doc.page.margins.top - doc.page.margins.bottom - headerHeight - pad * 2 - 1;
    const height = Math.min(Math.max(font + 2, ...heights), bold ? Infinity : tallest) + pad * 2;
    const bottom = doc.page.height - doc.page.margins.bottom;
    if (doc.y + height > bottom && !bold) {
      doc.addPage();
    }
    const top = doc.y;
    let x = doc.page.margins.left;
    if (shade || bold) doc.rect(x, top, widths.reduce((a, b) => a + b, 0), height).fill(bold ? '#dde3ea' : '#f5f7f9').fillColor('black');
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(font);
    texts.forEach((text, i) => {
      const clip = heights[i] > height - pad * 2 ? { height: height - pad * 2, ellipsis: true } : {};
      doc.text(text, x + pad, top + pad, { width: widths[i] - pad * 2, ...clip });
      x += widths[i];
    });
    doc.x = doc.page.margins.left;
    doc.y = top + height;
    if (bold) headerHeight = height;
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
