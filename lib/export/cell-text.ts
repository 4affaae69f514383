/**
 * Text made safe for the export writers (no pdfkit or exceljs import: the templates load this too).
 *
 * XML 1.0 (inside every xlsx) allows tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD and whole surrogate
 * pairs: anything else in one cell made the whole workbook unreadable. PDF standard fonts have no
 * glyph for them either.
 */
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` without the characters XML 1.0 forbids (C0 controls but tab/LF/CR, U+FFFE, U+FFFF, lone surrogates). */
export function xmlSafe(text: string): string {
  XML_INVALID.lastIndex = 0;
  return XML_INVALID.test(text) ? text.replace(XML_INVALID, '') : text;
}

/** `text` cut to at most `max` characters (UTF-16 units, never inside a surrogate pair), ending with an ellipsis when cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** What a PDF document offers to measure text (pdfkit's `widthOfString` in the current font and size). */
export interface TextMeasure {
  widthOfString(text: string): number;
}

const WORD = /\S+/g;

/**
 * `text` with a line break inserted into every word wider than `width`, at the last character that
 * fits, so pdfkit's wrapper never has to cut a word itself: its character-by-character search
 * re-measures the rest of the word for every line, which is quadratic (a 100,000-character word
 * took 20-30 s of blocked event loop). Linear: each character is measured once per distinct value.
 */
export function breakLongWords(doc: TextMeasure, text: string, width: number): string {
  const widths = new Map<string, number>();
  const widthOf = (ch: string): number => {
    let w = widths.get(ch);
    if (w === undefined) {
      w = doc.widthOfString(ch);
      widths.set(ch, w);
    }
    return w;
  };
  // kerning can make a run slightly wider than the sum of its glyphs: keep a margin
  const room = width * 0.97;
  return text.replace(WORD, (word) => {
    let total = 0;
    for (const ch of word) total += widthOf(ch);
    if (total <= room) return word;
    const pieces: string[] = [];
    let start = 0;
    let run = 0;
    let i = 0;
    for (const ch of word) {
      const w = widthOf(ch);
      if (run + w > room && i > start) {
        pieces.push(word.slice(start, i));
        start = i;
        run = 0;
      }
      run += w;
      i += ch.length;
    }
    pieces.push(word.slice(start));
    return pieces.join('\n');
  });
}
