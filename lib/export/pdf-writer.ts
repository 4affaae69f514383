import PDFDocument from 'pdfkit';
import type { Writable } from 'node:stream';
import { formatDate } from '../service/reads/serialize';
import { capText, xmlSafe } from './cell-text';
import { drained } from './drain';
import type { PdfTemplate } from './pdf-templates';
import { loopYielder } from './yield-loop';

/** The most characters of one cell a PDF shows (a table is for reading; the spreadsheet holds whole values). */
export const PDF_CELL_MAX = 1000;

/** A cell as PDF text: without control characters, at most PDF_CELL_MAX characters. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatDate(value);
  const raw = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return xmlSafe(capText(raw, PDF_CELL_MAX));
}

/** Streams rows through a template into a PDF piped to `out`; the document is never held whole. */
export async function writePdf(out: Writable, headers: string[], batches: AsyncIterable<unknown[][]>, template: PdfTemplate, signal: AbortSignal): Promise<number> {
  const landscape = template.landscape?.(headers.length) ?? headers.length > 6;
  const doc = new PDFDocument({ size: 'A4', layout: landscape ? 'landscape' : 'portrait', margin: 36, bufferPages: false });
  doc.pipe(out);
  template.begin(doc, headers);
  let count = 0;
  const loop = loopYielder();
  for await (const batch of batches) {
    if (signal.aborted) break;
    for (const values of batch) {
      template.row(doc, values.map(text));
      count += 1;
      // layout is synchronous: other requests get their turn between rows
      const turn = loop.tick();
      if (turn) {
        await turn;
        if (signal.aborted) break;
      }
    }
    await drained(out, signal);
  }
  if (signal.aborted) throw new Error('The client went away during the export.');
  template.end?.(doc, count);
  const finished = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
  });
  doc.end();
  await finished;
  return count;
}
