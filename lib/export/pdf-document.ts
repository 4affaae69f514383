/**
 * The pdfkit document a PDF template draws on, as far as the published types describe it: the
 * package's types must compile without pdfkit's (an optional peer, typed by @types/pdfkit), so
 * they name the part of pdfkit's `PDFDocument` the default template and most templates use. The
 * object a template gets is pdfkit's own document: with @types/pdfkit installed, type a template
 * `PdfTemplate<PDFKit.PDFDocument>` for the whole of pdfkit's API.
 */
export interface PdfDocument {
  /** The current page: size in points and margins. */
  readonly page: { width: number; height: number; margins: { top: number; right: number; bottom: number; left: number } };
  /** The text cursor, in points. */
  x: number;
  y: number;
  /** A standard font name (`Helvetica`, `Helvetica-Bold`, `Times-Roman`, …) or a font file path. */
  font(name: string, size?: number): this;
  fontSize(size: number): this;
  fillColor(color: string, opacity?: number): this;
  strokeColor(color: string, opacity?: number): this;
  text(text: string, x?: number, y?: number, options?: PdfTextOptions): this;
  text(text: string, options?: PdfTextOptions): this;
  widthOfString(text: string, options?: PdfTextOptions): number;
  heightOfString(text: string, options?: PdfTextOptions): number;
  moveDown(lines?: number): this;
  moveUp(lines?: number): this;
  lineWidth(width: number): this;
  moveTo(x: number, y: number): this;
  lineTo(x: number, y: number): this;
  rect(x: number, y: number, width: number, height: number): this;
  fill(color?: string): this;
  stroke(color?: string): this;
  save(): this;
  restore(): this;
  /** An image file path or its bytes. */
  image(src: string | Uint8Array | ArrayBuffer, x?: number, y?: number, options?: { width?: number; height?: number; fit?: [number, number]; align?: 'center' | 'right'; valign?: 'center' | 'bottom' }): this;
  addPage(options?: { size?: string | [number, number]; layout?: 'portrait' | 'landscape'; margin?: number }): unknown;
  /** `pageAdded` after each new page. */
  on(event: string, listener: (...args: unknown[]) => void): this;
}

/** The text options of pdfkit's `text()` the published types name. */
export interface PdfTextOptions {
  width?: number;
  height?: number;
  align?: 'left' | 'center' | 'right' | 'justify';
  /** Text cut at `height` ends with an ellipsis (true: `…`). */
  ellipsis?: boolean | string;
  lineBreak?: boolean;
  lineGap?: number;
  continued?: boolean;
  underline?: boolean;
  strike?: boolean;
  link?: string;
  columns?: number;
  indent?: number;
}
