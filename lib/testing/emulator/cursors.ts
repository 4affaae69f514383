import { calculateObjectSize, Long } from 'bson';
import { CommandError } from './errors';
import type { Doc } from './values';

/** Stay under the 16 MiB reply limit like the server does when no batchSize is given. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 16 * 1024;
const DEFAULT_FIRST_BATCH = 101;

interface OpenCursor {
  id: number;
  ns: string;
  docs: Doc[];
  position: number;
  sessionKey?: string;
}

/** Results are materialised once; a cursor is an offset into them that getMore advances. */
export class CursorRegistry {
  private readonly open = new Map<number, OpenCursor>();
  private nextId = 1;

  private take(docs: Doc[], from: number, batchSize: number | undefined): Doc[] {
    const limit = batchSize && batchSize > 0 ? batchSize : Number.MAX_SAFE_INTEGER;
    const out: Doc[] = [];
    let bytes = 0;
    for (let i = from; i < docs.length && out.length < limit; i++) {
      bytes += calculateObjectSize(docs[i]);
      if (out.length > 0 && bytes > MAX_BATCH_BYTES) break;
      out.push(docs[i]);
    }
    return out;
  }

  /** Build the `{cursor: {firstBatch, id, ns}}` reply and keep the rest open when needed. */
  first(ns: string, docs: Doc[], opts: { batchSize?: number; singleBatch?: boolean; sessionKey?: string }): Doc {
    const batchSize = opts.batchSize === undefined ? DEFAULT_FIRST_BATCH : opts.batchSize;
    // batchSize 0 means "open the cursor but return nothing yet".
    const batch = batchSize === 0 ? [] : this.take(docs, 0, batchSize);
    let id = 0;
    if (batch.length < docs.length && !opts.singleBatch) {
      id = this.nextId++;
      this.open.set(id, { id, ns, docs, position: batch.length, sessionKey: opts.sessionKey });
    }
    return { cursor: { firstBatch: batch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  more(ns: string, id: number, batchSize: number | undefined): Doc {
    const c = this.open.get(id);
    if (!c || c.ns !== ns) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
    const batch = this.take(c.docs, c.position, batchSize);
    c.position += batch.length;
    let outId = id;
    if (c.position >= c.docs.length) {
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
