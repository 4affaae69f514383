import type { Request } from './wire';
import type { Doc } from './values';

/** Statements per slice of a large write command; the event loop turns between slices. */
export const CHUNK_STATEMENTS = 1000;

/** The statement list of each batched write command. */
const LISTS: Record<string, string> = { insert: 'documents', update: 'updates', delete: 'deletes' };

/** The statements of an insert/update/delete command and the field holding them; undefined for other commands. */
export function statementList(cmd: Doc): { field: string; statements: unknown[]; length: number } | undefined {
  const field = LISTS[Object.keys(cmd)[0] ?? ''];
  const list = field ? cmd[field] : undefined;
  return Array.isArray(list) ? { field, statements: list, length: list.length } : undefined;
}

/**
 * The slices a large insert/update/delete runs as, or undefined for any other command.
 *
 * The emulator runs a command at a time on one event loop, so a 10,000-document insert held up
 * every other connection (and the driver's heartbeats) for its whole duration. MongoDB's batched
 * writes are not atomic as a whole (each statement is), so running the statements in slices of
 * CHUNK_STATEMENTS, in order, with other connections served in between, answers exactly as one run:
 * the slices' replies are merged (counts added, statement indexes shifted). Only the first slice
 * starts a transaction (and carries its readConcern); an ordered batch, or one in a transaction (a failed statement aborts it),
 * stops at the first slice with a write error.
 */
export function slices(request: Request): Request[] | undefined {
  const cmd = request.command;
  const name = Object.keys(cmd)[0] ?? '';
  const field = LISTS[name];
  const list = field ? cmd[field] : undefined;
  if (!Array.isArray(list) || list.length <= CHUNK_STATEMENTS || request.moreToCome) return undefined;
  const out: Request[] = [];
  for (let start = 0; start < list.length; start += CHUNK_STATEMENTS) {
    const command: Doc = { ...cmd, [field]: list.slice(start, start + CHUNK_STATEMENTS) };
    if (start > 0) {
      // later slices continue the transaction the first one started (only a first command carries these)
      delete command.startTransaction;
      delete command.readConcern;
    }
    out.push({ ...request, command });
  }
  return out;
}

/** Runs the slices one after another, yielding to the event loop in between, and merges their replies. */
export async function runSlices(parts: Request[], runOne: (part: Request) => Doc | Promise<Doc>): Promise<Doc> {
  const field = LISTS[Object.keys(parts[0].command)[0] ?? ''];
  const ordered = parts[0].command.ordered !== false;
  const inTransaction = parts[0].command.autocommit === false;
  let n = 0;
  let nModified: number | undefined;
  const writeErrors: Doc[] = [];
  const upserted: Doc[] = [];
  let last: Doc = {};
  for (let i = 0, offset = 0; i < parts.length; i++) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const part = parts[i];
    const reply = await runOne(part);
    if (reply.ok !== 1) return reply; // a command error ends the batch, as it would the whole command
    last = reply;
    n += Number(reply.n ?? 0);
    if (reply.nModified !== undefined) nModified = (nModified ?? 0) + Number(reply.nModified);
    for (const e of (reply.writeErrors as Doc[] | undefined) ?? []) writeErrors.push({ ...e, index: Number(e.index) + offset });
    for (const u of (reply.upserted as Doc[] | undefined) ?? []) upserted.push({ ...u, index: Number(u.index) + offset });
    offset += (part.command[field] as unknown[]).length;
    if (reply.writeErrors && (ordered || inTransaction)) break;
  }
  const { ok, upserted: _u, writeErrors: _w, ...rest } = last;
  const merged: Doc = { ...rest, n };
  if (nModified !== undefined) merged.nModified = nModified;
  if (upserted.length) merged.upserted = upserted;
  if (writeErrors.length) merged.writeErrors = writeErrors;
  merged.ok = ok;
  return merged;
}
