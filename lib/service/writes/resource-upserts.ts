import type { Id, Row, UpsertAction } from '../../driver';
import { ApiError, RefusedChangeError, ValidationError } from '../../errors';
import { narrowColumns } from '../policy/catalog-view';
import { checkReferences } from './check-references';
import { runHook } from '../hooks';
import { ownerValue } from '../policy/ownership';
import type { RequestContext } from '../request-context';
import { ResourceWrites } from './resource-writes';
import { unchangedBy } from './upsert-compare';
import { matchFilter, readUpsertBody, tupleOf } from './upsert-body';
import type { FieldErrors } from './validate-input';

/** Records per driver call (one statement or one bulkWrite each), all in one transaction. */
export const UPSERT_CHUNK = 1000;

export interface UpsertAnswer {
  created: number;
  updated: number;
  unchanged: number;
  models: Array<{ action: UpsertAction; model: Row }>;
}

/** Decision 79: a match the caller may not change (hidden by scopes or ownership, or trashed); reveals nothing of it. */
export class UpsertConflictError extends ApiError {
  constructor(readonly resource: string, readonly keys: string[], readonly path: string) {
    super('conflict', `A ${resource} record with these ${keys.join(', ')} values exists and cannot be changed by this request.`);
  }

  override body(): Record<string, unknown> {
    return { error: { index: `${this.resource}_${this.keys.join('_')}_unique`, keys: this.keys, path: this.path } };
  }
}

/**
 * `POST /{resource}/upsert` (decision 79): the records are matched by a declared set of unique
 * fields before anything is written (one read), then each is checked as a create (new) or an
 * update (matched) under the caller's rules, and all are written in one transaction, one driver
 * call per chunk of UPSERT_CHUNK records. Matched records whose given values are the stored ones
 * are not written (decision 67).
 */
export class ResourceUpserts extends ResourceWrites {
  async upsert(body: unknown, ctx: RequestContext): Promise<UpsertAnswer> {
    const { info } = this.entry;
    const { keys, items, prefix } = readUpsertBody(body, this.entry);
    const filter = matchFilter(this.entry, keys, items);
    const guard = this.changeGuard(ctx);
    // every record holding these match values, trashed and hidden ones included, in the fields the
    // checks and the compare read (a record gives fillable fields, the owner stamped): the answer's
    // others come with the write
    const select = [...new Set([info.key, ...keys, ...info.fillable, ...[info.owner, info.versionField].filter((f): f is string => !!f), ...(guard?.fields ?? [])])].filter((f) => f in info.fields);
    const found = await this.db(() => this.database.list({ model: this.name, filter, select, relations: [], order: [{ relations: [], field: info.key, direction: 'asc' }], page: null, limit: null, trashed: info.softDelete ? 'with' : undefined }));
    const stored = new Map(found.rows.map((row) => [tupleOf(keys, row), row]));
    const matches = items.map((item) => stored.get(tupleOf(keys, item)));
    await this.assertMatchesVisible(matches, keys, prefix, ctx);
    // decision 69: a match the caller could not change (a superuser, roles it cannot grant); the rows hold its fields
    for (const row of guard ? matches : []) {
      const refusal = row && guard!.refusal(row);
      if (refusal) throw new RefusedChangeError(refusal);
    }

    const errors: FieldErrors = {};
    const createRules = this.writeRules('create', ctx, {});
    const updateRules = this.writeRules('update', ctx, {});
    const records: Record<string, unknown>[] = [];
    // each run of records with the same action in one call (a bulk request's usual order: a few runs)
    for (let from = 0, to = 1; from < items.length; from = to, to = from + 1) {
      while (to < items.length && !matches[to] === !matches[from]) to += 1;
      records.push(...(await this.prepareRange(items, from, to, prefix, matches[from] ? updateRules : createRules, errors)));
    }
    await this.db(() => checkReferences(this.entry, this.registry, records, (i, field) => `${prefix(i)}${field}`, errors));
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const actions: Array<UpsertAction | null> = records.map((record, i) => (matches[i] && unchangedBy(info, record, matches[i]!, keys) ? 'unchanged' : null));
    const createdAt = indexes(records.length, (i) => !matches[i]);
    const updatedAt = indexes(records.length, (i) => !!matches[i] && actions[i] === null);
    const creates = await runHook(this.hooks.beforeCreate, createdAt.map((i) => records[i]), ctx);
    const updates = await runHook(this.hooks.beforeUpdate, updatedAt.map((i) => ({ id: matches[i]![info.key] as Id, changes: records[i] })), ctx);
    // a hook may change a record but not its match values
    if (this.hooks.beforeCreate) createdAt.forEach((i, n) => (records[i] = { ...creates[n], ...pick(records[i], keys) }));
    if (this.hooks.beforeUpdate) updatedAt.forEach((i, n) => (records[i] = { ...updates[n].changes, ...pick(records[i], keys) }));
    this.logQuery('upsert', { keys, count: records.length });

    const read = narrowColumns({ model: this.name, filter, select: null, relations: [], order: [{ relations: [], field: info.key, direction: 'asc' }], page: null, limit: null }, this.pipeline.viewOf(ctx));
    const answered = await this.db(() =>
      this.database.transaction(async (tx) => {
        // the answer: the rows as the statement returned them, written ones and (with the last chunk) unchanged ones, when the driver can
        const answers: Array<Row | null> = records.map(() => null);
        const written = indexes(records.length, (i) => actions[i] === null);
        const unchanged = indexes(records.length, (i) => actions[i] === 'unchanged');
        for (let from = 0; from < written.length; from += UPSERT_CHUNK) {
          const slice = written.slice(from, from + UPSERT_CHUNK);
          const matched = slice.filter((i) => matches[i]);
          const fresh = slice.filter((i) => !matches[i]);
          // nothing runs after the last chunk in this transaction: its statement may carry the
          // COMMIT (a lone one is the whole transaction, without BEGIN and COMMIT)
          const last = from + UPSERT_CHUNK >= written.length;
          if (last) tx.endsWithNext = true;
          const outcome = await this.database.upsert(this.name, { keys, matched: matched.map((i) => records[i]), matchedIds: matched.map((i) => matches[i]![info.key] as Id), matchedRows: matched.map((i) => matches[i]!), created: fresh.map((i) => records[i]), read, unchangedIds: last ? unchanged.map((i) => matches[i]![info.key] as Id) : [] }, tx);
          matched.forEach((i, n) => ((actions[i] = outcome.matched[n]), (answers[i] = outcome.rows?.matched[n] ?? null)));
          fresh.forEach((i, n) => ((actions[i] = outcome.created[n]), (answers[i] = outcome.rows?.created[n] ?? null)));
          if (last) unchanged.forEach((i, n) => (answers[i] = outcome.rows?.unchanged?.[n] ?? null));
        }
        return answers;
      }, ctx),
    );
    // rows not answered (nothing written, MongoDB, a concurrent loser left unchanged) are read after
    // the commit, as a read of the request's records would (READ COMMITTED: what a read in it saw too)
    const after = answered.every((row) => row !== null) ? null : new Map((await this.db(() => this.database.list(read))).rows.map((row) => [tupleOf(keys, row), row]));
    // a record deleted meanwhile answers with what the first read saw of it
    const rows = this.shape(after ? items.map((item, i) => after.get(tupleOf(keys, item)) ?? answered[i] ?? matches[i]!) : (answered as Row[]), read, ctx);
    if (actions.some((a) => a !== 'unchanged')) ctx.touched.add(this.name);
    const made = indexes(rows.length, (i) => actions[i] === 'created');
    const changed = indexes(rows.length, (i) => actions[i] === 'updated');
    if (this.hooks.afterCreate) (await runHook(this.hooks.afterCreate, made.map((i) => rows[i]), ctx)).forEach((row, n) => (rows[made[n]] = row));
    if (this.hooks.afterUpdate) (await runHook(this.hooks.afterUpdate, changed.map((i) => rows[i]), ctx)).forEach((row, n) => (rows[changed[n]] = row));
    return { created: made.length, updated: changed.length, unchanged: rows.length - made.length - changed.length, models: rows.map((model, i) => ({ action: actions[i]!, model })) };
  }

  /** A match the caller may not see (scopes, soft delete) or, under an own update grant, does not own: a 409 that names nothing of it. */
  private async assertMatchesVisible(matches: Array<Row | undefined>, keys: string[], prefix: (i: number) => string, ctx: RequestContext): Promise<void> {
    const { info } = this.entry;
    const ids: Id[] = [];
    for (const row of matches) if (row) ids.push(row[info.key] as Id);
    const own = this.pipeline.policy.possession(info, 'update', ctx) === 'own' && info.owner ? String(ownerValue(info, ctx)) : null;
    // no scope narrows what the caller sees: every match found is visible (no second read)
    const scoped = ids.length > 0 && !!this.rootScope(null, ctx);
    if (!scoped && own === null) return;
    const visible = scoped ? new Set((await this.db(() => this.visibleIds(ids, ctx))).map(String)) : null;
    matches.forEach((row, i) => {
      if (!row) return;
      const hidden = (visible !== null && !visible.has(String(row[info.key]))) || (own !== null && String(row[info.owner!]) !== own);
      if (hidden) throw new UpsertConflictError(this.name, keys, `${prefix(i)}${keys[0]}`);
    });
  }
}

/** The indexes below `n` that pass `test`, in order. */
function indexes(n: number, test: (i: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) if (test(i)) out.push(i);
  return out;
}

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (record[k] !== undefined) out[k] = record[k];
  return out;
}
