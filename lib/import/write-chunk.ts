import { ApiError, ValidationError } from '../errors';
import type { Filter } from '../query/ast';
import type { ResourceService } from '../service/resource-service';
import type { RequestContext } from '../service/request-context';
import { UpsertConflictError } from '../service/writes/resource-upserts';
import type { ImportColumn } from './import-columns';
import type { BuiltRow } from './import-rows';
import type { RowError } from './sheet-row';

export interface ChunkOutcome {
  created: number;
  updated: number;
  unchanged: number;
}

export interface ChunkPlan {
  service: ResourceService;
  mode: 'insert' | 'upsert';
  /** Upsert: the match keys. */
  keys: string[];
  columns: ImportColumn[];
  ctx: RequestContext;
}

const PATH = /^[^.]+\.(\d+)\.?(.*)$/;

function codeOf(message: string): string {
  if (/required/i.test(message)) return 'required';
  if (/unique|already/i.test(message)) return 'unique';
  if (/exist|not found|unknown/i.test(message)) return 'not_found';
  return 'invalid';
}

function columnOf(columns: ImportColumn[], field: string): string | null {
  const own = columns.find((c) => (c.kind === 'field' || c.kind === 'owner') && c.field.name === field);
  if (own) return own.header;
  const path = columns.find((c) => c.kind === 'relation' && c.foreignKey.name === field);
  return path ? path.header : null;
}

/** A store's 422 turned into row errors (the paths are `<key>.<index>.<field>`); false when a path names no row. */
function rowErrorsOf(error: ValidationError, rows: BuiltRow[], columns: ImportColumn[]): boolean {
  let placed = false;
  for (const [path, messages] of Object.entries(error.errors)) {
    const m = PATH.exec(path);
    const target = m ? rows[Number(m[1])] : undefined;
    if (!target) continue;
    placed = true;
    const field = m![2] || null;
    target.error ??= { row: target.row, column: field ? columnOf(columns, field) ?? field : null, field, code: codeOf(messages[0]), message: messages[0] };
  }
  return placed;
}

/**
 * Insert mode: a value of a single-field unique key already stored, or repeated in the chunk, is a
 * row error `unique` (one query per unique field for the chunk) rather than the whole chunk's 409.
 */
export async function markDuplicates(rows: BuiltRow[], plan: ChunkPlan): Promise<void> {
  const { info } = plan.service.entry;
  const fields = plan.mode === 'upsert' ? [] : (info.uniqueKeys ?? []).filter((set) => set.length === 1 && set[0] !== info.key).map((set) => set[0]);
  const tuple = (r: BuiltRow, keys: string[]) => JSON.stringify(keys.map((k) => r.record[k] ?? null));
  if (plan.mode === 'upsert') {
    const seen = new Set<string>();
    for (const r of rows) {
      if (r.error) continue;
      const t = tuple(r, plan.keys);
      if (seen.has(t)) r.error = { row: r.row, column: columnOf(plan.columns, plan.keys[0]), field: plan.keys[0], code: 'duplicate', message: `Row ${r.row} repeats the ${plan.keys.join(', ')} of an earlier row.` };
      seen.add(t);
    }
    return;
  }
  for (const field of fields) {
    const live = rows.filter((r) => !r.error && r.record[field] !== null && r.record[field] !== undefined);
    if (live.length === 0) continue;
    const seen = new Set<string>();
    const filter: Filter = { kind: 'condition', field, operator: 'in', value: [...new Set(live.map((r) => r.record[field] as string))] };
    const stored = new Set((await plan.service.listKeys(field, filter, plan.ctx)).map((k) => String(k.value)));
    for (const r of live) {
      const v = String(r.record[field]);
      if (stored.has(v) || seen.has(v)) r.error = { row: r.row, column: columnOf(plan.columns, field), field, code: 'unique', message: `The ${field} "${v}" is already taken.` };
      seen.add(v);
    }
  }
}

async function writeOnce(rows: BuiltRow[], plan: ChunkPlan): Promise<ChunkOutcome> {
  const records = rows.map((r) => r.record);
  if (plan.mode === 'insert') {
    // only counted: the new records are not read back (unless an afterCreate hook needs them)
    const result = await plan.service.storeItems(records, true, plan.ctx, { itemKey: 'row', keysOnly: true });
    const created = 'models' in result ? result.models.length : 1;
    // emptied: promoted dead arrays keep young rows alive (row-batches.ts)
    if ('models' in result) result.models.length = 0;
    records.length = 0;
    return { created, updated: 0, unchanged: 0 };
  }
  const { created, updated, unchanged } = await plan.service.upsert({ match: plan.keys, [plan.service.name]: records }, plan.ctx);
  return { created, updated, unchanged };
}

/**
 * The rows without errors written through the resource's own store or upsert (policy, hooks, the
 * change feed's recording and the cache bump as for the same JSON writes), in one transaction.
 * `skip`: rows a 422 names are marked and the rest written again; a unique value met reads the
 * chunk's unique values once (`checked`: already done by an enclosing call); any other refusal
 * (one that names no row: a value out of a column's range, a constraint the schema does not know)
 * halves the rows until it is down to one (`bisect`). `abort`: the first error throws.
 */
export async function writeChunk(rows: BuiltRow[], plan: ChunkPlan, skip: boolean, checked = false): Promise<ChunkOutcome> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const live = rows.filter((r) => !r.error);
    if (live.length === 0) return { created: 0, updated: 0, unchanged: 0 };
    try {
      return await writeOnce(live, plan);
    } catch (error) {
      if (error instanceof ValidationError && rowErrorsOf(error, live, plan.columns)) {
        if (!skip) return { created: 0, updated: 0, unchanged: 0 };
        continue;
      }
      if (error instanceof UpsertConflictError) {
        const m = PATH.exec(error.path);
        const target = m ? live[Number(m[1])] : undefined;
        if (target) {
          target.error = { row: target.row, column: columnOf(plan.columns, error.keys[0]), field: error.keys[0], code: 'conflict', message: error.message };
          if (!skip) return { created: 0, updated: 0, unchanged: 0 };
          continue;
        }
      }
      // without transactions (MongoDB's `transactions: false`) a refused bulk write may have written
      // its first rows: writing them again would store them twice or list them as bad, so it fails the import
      if (!plan.service.database.capabilities.transactions && live.length > 1) throw error;
      // a value already stored: the chunk's unique values read once (one query a field) and those rows marked
      if (skip && !checked && plan.mode === 'insert' && error instanceof ApiError && error.type === 'unique_violation') {
        checked = true;
        await markDuplicates(live, plan);
        continue;
      }
      if (!skip || !(error instanceof ApiError) || error.status >= 500) throw error;
      if (live.length === 1) return markAll(live, error);
      return bisect(live, plan, checked);
    }
  }
  return bisect(rows.filter((r) => !r.error), plan, checked);
}

/** Abort mode with errors found before the write: the other rows validated too (nothing written), so the 422 lists them all. */
export async function validateOnly(rows: BuiltRow[], plan: ChunkPlan): Promise<void> {
  const live = rows.filter((r) => !r.error);
  if (live.length === 0 || plan.mode !== 'insert') return;
  try {
    await plan.service.prepare(live.map((r) => r.record), 'create', (i) => `row.${i}.`, plan.ctx);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    rowErrorsOf(error, live, plan.columns);
  }
}

function markAll(rows: BuiltRow[], error: ApiError): ChunkOutcome {
  for (const r of rows) r.error ??= { row: r.row, column: null, field: null, code: error.type, message: error.message };
  return { created: 0, updated: 0, unchanged: 0 };
}

/**
 * A refusal that names no row, in halves: each half written in a transaction of its own (a good
 * half commits whole, a refused one is halved again), so b bad rows of n cost about 2b·log2(n)
 * writes instead of n, and a row is never half written. Bounded by 2n - 1 writes when every row is bad.
 */
async function bisect(rows: BuiltRow[], plan: ChunkPlan, checked: boolean): Promise<ChunkOutcome> {
  if (rows.length === 0) return { created: 0, updated: 0, unchanged: 0 };
  const middle = Math.ceil(rows.length / 2);
  const total: ChunkOutcome = { created: 0, updated: 0, unchanged: 0 };
  for (const half of [rows.slice(0, middle), rows.slice(middle)]) {
    const outcome = await writeChunk(half, plan, true, checked);
    total.created += outcome.created;
    total.updated += outcome.updated;
    total.unchanged += outcome.unchanged;
  }
  return total;
}

export type { RowError };
