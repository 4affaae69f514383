import { Long } from 'bson';
import { CommandError } from './errors';
import { checkDocumentSize } from './reply-size';
import type { Doc } from './values';

/** Stay under the 16 MiB reply limit like the server does when no batchSize is given. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 16 * 1024;
const DEFAULT_FIRST_BATCH = 101;

interface OpenCursor {
  id: number;
  ns: string;
  /** The rest of the results, computed as getMore asks for them (see `first`). */
  source: Iterator<Doc>;
  /** The next document, already pulled from `source` (to know whether any is left). */
  ahead: Doc | undefined;
  sessionKey?: string;
}

/**
 * Open cursors. A result is an array or a lazy iterator (find without a sort streams the
 * collection): batches are pulled from it by the first reply and each getMore, one document ahead
 * so the cursor id is 0 exactly when nothing is left, as when the whole result was materialised.
 */
export class CursorRegistry {
  private readonly open = new Map<number, OpenCursor>();
  private nextId = 1;

  /** Up to `batchSize` documents (and the reply size limit) from `c`; keeps one document ahead. */
  private take(c: OpenCursor, batchSize: number | undefined): Doc[] {
    const limit = batchSize && batchSize > 0 ? batchSize : Number.MAX_SAFE_INTEGER;
    const out: Doc[] = [];
    let bytes = 0;
    while (out.length < limit) {
      const doc = c.ahead ?? this.pull(c);
      c.ahead = undefined;
      if (doc === undefined) break;
      // a result document over the BSON limit fails the command, as on the server (never the host)
      bytes += checkDocumentSize(doc);
      if (out.length > 0 && bytes > MAX_BATCH_BYTES) {
        c.ahead = doc;
        break;
      }
      out.push(doc);
    }
    if (c.ahead === undefined) c.ahead = this.pull(c);
    return out;
  }

  private pull(c: OpenCursor): Doc | undefined {
    const r = c.source.next();
    return r.done ? undefined : r.value;
  }

  /** Build the `{cursor: {firstBatch, id, ns}}` reply and keep the rest open when needed. */
  first(ns: string, docs: Doc[] | Iterator<Doc>, opts: { batchSize?: number; singleBatch?: boolean; sessionKey?: string }): Doc {
    const batchSize = opts.batchSize === undefined ? DEFAULT_FIRST_BATCH : opts.batchSize;
    const c: OpenCursor = { id: 0, ns, source: Array.isArray(docs) ? docs[Symbol.iterator]() : docs, ahead: undefined, sessionKey: opts.sessionKey };
    // batchSize 0 means "open the cursor but return nothing yet".
    let batch: Doc[];
    if (batchSize === 0) {
      batch = [];
      c.ahead = this.pull(c);
    } else batch = this.take(c, batchSize);
    if (c.ahead !== undefined && !opts.singleBatch) {
      c.id = this.nextId++;
      this.open.set(c.id, c);
    }
    return { cursor: { firstBatch: batch, id: Long.fromNumber(c.id), ns }, ok: 1 };
  }

  more(ns: string, id: number, batchSize: number | undefined): Doc {
    const c = this.open.get(id);
    if (!c || c.ns !== ns) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
    let batch: Doc[];
    try {
      batch = this.take(c, batchSize);
    } catch (err) {
      // the server kills a cursor whose getMore failed
      this.open.delete(id);
      throw err;
    }
    let outId = id;
    if (c.ahead === undefined) {
      this.open.delete(id);
      outId = 0;
    }
    return { cursor: { nextBatch: batch, id: Long.fromNumber(outId), ns }, ok: 1 };
  }

  kill(ids: number[]): Doc {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.open.delete(id) ? killed : notFound).push(Long.fromNumber(id));
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  killSession(sessionKey: string): void {
    for (const [id, c] of this.open) if (c.sessionKey === sessionKey) this.open.delete(id);
  }

  get size(): number {
    return this.open.size;
  }
}
