import PDFDocument from 'pdfkit';
import type { Writable } from 'node:stream';
import { formatDate } from '../http/serialize';
import { drained } from './drain';
import type { PdfTemplate } from './pdf-templates';

/** A cell as PDF text. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatDate(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Streams rows through a template into a PDF piped to `out`; the document is never held whole. */
export async function writePdf(out: Writable, headers: string[], batches: AsyncIterable<unknown[][]>, template: PdfTemplate, signal: AbortSignal): Promise<number> {
  const landscape = template.landscape?.(headers.length) ?? headers.length > 6;
  const doc = new PDFDocument({ size: 'A4', layout: landscape ? 'landscape' : 'portrait', margin: 36, bufferPages: false });
  doc.pipe(out);
  template.begin(doc, headers);
  let count = 0;
  for await (const batch of batches) {
    if (signal.aborted) break;
    for (const values of batch) template.row(doc, values.map(text));
    count += batch.length;
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
