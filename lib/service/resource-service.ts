import type { Id, Row, Transaction } from '../../drivers/driver';
import type { RestConfig } from '../config';
import { ApiError, BadRequestError, DatabaseError, MissingIdsError, NotFoundError, ValidationError } from '../errors';
import type { Loggers } from '../log/logger';
import { parseListQuery, parseReadOptions, type RequestParams } from '../query';
import type { ListQuery } from '../query/ast';
import type { Registry, ResourceEntry } from '../resource/registry';
import { checkReferences } from './check-references';
import { checkValues } from './check-values';
import { listEnvelope, type ListEnvelope } from './envelopes';
import { plainObject, readIdList, readStoreBody } from './read-body';
import { addError, pickFillable, validateItem, type FieldErrors } from './validate-input';

export interface WriteResult {
  success: true;
  model: Row;
}

export interface BulkWriteResult {
  success: true;
  models: WriteResult[];
}

/**
 * The operations of one resource, driver-agnostic. Parses input once, validates everything before
 * opening a transaction, runs each write in one transaction with a constant number of driver calls,
 * and turns native database errors into typed ones.
 */
export class ResourceService {
  constructor(
    private readonly entry: ResourceEntry,
    private readonly registry: Registry,
    private readonly config: RestConfig,
    private readonly log: Loggers,
  ) {}

  private get name(): string {
    return this.entry.info.name;
  }

  private get driver() {
    return this.entry.driver;
  }

  async list(params: RequestParams, action = 'index'): Promise<ListEnvelope> {
    const query = parseListQuery(params, this.entry.info, this.registry, this.config);
    this.logQuery(action, query);
    const result = await this.db(() => this.driver.list(query));
    return listEnvelope(query, result);
  }

  async first(params: RequestParams): Promise<{ data: Row | null }> {
    const query = parseListQuery(params, this.entry.info, this.registry, this.config, { forFirst: true });
    this.logQuery('first', query);
    const result = await this.db(() => this.driver.list(query));
    return { data: result.rows[0] ?? null };
  }

  async show(rawId: string, params: RequestParams): Promise<Row> {
    const id = this.parseIdOr404(rawId);
    const options = parseReadOptions(params, this.entry.info, this.registry, this.config);
    this.logQuery('show', { id, ...options });
    const [row] = await this.db(() => this.driver.findByIds(this.name, [id], options));
    if (!row) throw this.notFound(rawId);
    return row;
  }

  async store(body: unknown): Promise<WriteResult | BulkWriteResult> {
    const { items, many } = readStoreBody(body, this.name);
    if (items.length === 0) throw new BadRequestError(`The "${this.name}" array must contain at least one record.`, this.name);
    const records = await this.prepare(items, 'create', (i) => (many ? `${this.name}.${i}.` : ''));
    this.logQuery('store', { count: records.length });
    const rows = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const ids = await this.driver.insert(this.name, records, tx);
        return this.reload(ids, tx);
      }),
    );
    if (!many) return { success: true, model: rows[0] };
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  async validate(body: unknown): Promise<{ success: true }> {
    await this.prepare([plainObject(body ?? {}, 'The request body')], 'create', () => '');
    return { success: true };
  }

  async update(rawId: string, body: unknown): Promise<WriteResult> {
    const id = this.parseIdOr404(rawId);
    const [changes] = await this.prepare([plainObject(body ?? {}, 'The request body')], 'update', () => '');
    this.logQuery('update', { id, changes });
    const [row] = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const existing = await this.driver.existingIds(this.name, [id], tx);
        if (existing.length === 0) throw this.notFound(rawId);
        if (Object.keys(changes).length > 0) await this.driver.update(this.name, [{ id, changes }], tx);
        return this.reload([id], tx);
      }),
    );
    return { success: true, model: row };
  }

  async updateMultiple(body: unknown): Promise<BulkWriteResult> {
    const raw = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[this.name] : undefined;
    if (!Array.isArray(raw)) throw new BadRequestError(`The "${this.name}" key is required and must be an array of records with an id.`, this.name);
    if (raw.length === 0) throw new BadRequestError(`The "${this.name}" array must contain at least one record.`, this.name);
    const errors: FieldErrors = {};
    const ids: Id[] = [];
    const unknownIds: Array<string | number> = [];
    raw.forEach((item, index) => {
      const rawId = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
      if (rawId === undefined || rawId === null || rawId === '') {
        addError(errors, `${this.name}.${index}.id`, 'The id field is required.');
        return;
      }
      if (typeof rawId !== 'string' && typeof rawId !== 'number') {
        // an object such as {"$ne": null} is not an id: never echoed back as one
        addError(errors, `${this.name}.${index}.id`, 'The id must be a string or a number.');
        return;
      }
      const id = this.driver.parseId(this.name, String(rawId));
      if (id === null) unknownIds.push(rawId);
      else ids.push(id);
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (unknownIds.length > 0) throw new MissingIdsError(this.name, unknownIds);
    if (new Set(ids).size !== ids.length) throw new BadRequestError(`Each id may appear only once in "${this.name}".`, this.name);
    const changes = await this.prepare(raw, 'update', (i) => `${this.name}.${i}.`);
    this.logQuery('updateMultiple', { ids });
    const rows = await this.db(() =>
      this.driver.transaction(async (tx) => {
        await this.assertAllExist(ids, tx);
        const items = ids.map((id, i) => ({ id, changes: changes[i] })).filter((item) => Object.keys(item.changes).length > 0);
        if (items.length > 0) await this.driver.update(this.name, items, tx);
        return this.reload(ids, tx);
      }),
    );
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  async destroy(rawId: string): Promise<WriteResult> {
    const id = this.parseIdOr404(rawId);
    this.logQuery('destroy', { id });
    const row = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const [found] = await this.driver.findByIds(this.name, [id], { select: null, relations: [] }, tx);
        if (!found) throw this.notFound(rawId);
        await this.driver.delete(this.name, [id], tx);
        return found;
      }),
    );
    return { success: true, model: row };
  }

  async deleteById(body: unknown): Promise<{ success: true; deleted: number }> {
    const rawIds = readIdList(body);
    if (rawIds.length === 0) throw new BadRequestError('The "ids" array must contain at least one id.', 'ids');
    const ids: Id[] = [];
    const invalid: Array<string | number> = [];
    const seen = new Set<Id>();
    const errors: FieldErrors = {};
    rawIds.forEach((rawId, index) => {
      if (typeof rawId !== 'string' && typeof rawId !== 'number') {
        addError(errors, `ids.${index}`, 'The id must be a string or a number.');
        return;
      }
      const id = this.driver.parseId(this.name, String(rawId));
      if (id === null) invalid.push(rawId);
      else if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (invalid.length > 0) throw new MissingIdsError(this.name, invalid);
    this.logQuery('deleteById', { ids });
    await this.db(() =>
      this.driver.transaction(async (tx) => {
        await this.assertAllExist(ids, tx);
        await this.driver.delete(this.name, ids, tx);
      }),
    );
    return { success: true, deleted: ids.length };
  }

  /** Fillable attributes, validated and cast, belongsTo references checked; 422 with every error. */
  private async prepare(items: unknown[], mode: 'create' | 'update', prefix: (index: number) => string): Promise<Record<string, unknown>[]> {
    const { info, declaration } = this.entry;
    const schema = mode === 'create' ? declaration.validation?.create : declaration.validation?.update;
    const errors: FieldErrors = {};
    const records: Record<string, unknown>[] = [];
    for (const [index, item] of items.entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        addError(errors, prefix(index).replace(/\.$/, '') || 'body', 'Each record must be a JSON object.');
        records.push({});
        continue;
      }
      const attributes = pickFillable(plainObject(item, 'A record'), info.fillable);
      const record = await validateItem(schema, attributes, info.fillable, prefix(index), errors);
      checkValues(info, record, prefix(index), errors);
      records.push(record);
    }
    await this.db(() => checkReferences(this.entry, this.registry, records, (i, field) => `${prefix(i)}${field}`, errors));
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return records;
  }

  private async assertAllExist(ids: Id[], tx: Transaction): Promise<void> {
    const existing = new Set(await this.driver.existingIds(this.name, ids, tx));
    const missing = ids.filter((id) => !existing.has(id));
    if (missing.length > 0) throw new MissingIdsError(this.name, missing);
  }

  private reload(ids: Id[], tx: Transaction): Promise<Row[]> {
    return this.driver.findByIds(this.name, ids, { select: null, relations: [] }, tx);
  }

  private parseIdOr404(rawId: string): Id {
    const id = this.driver.parseId(this.name, rawId);
    if (id === null) throw this.notFound(rawId);
    return id;
  }

  private notFound(rawId: string): NotFoundError {
    return new NotFoundError(`No ${this.name} found with id ${rawId}.`);
  }

  private logQuery(action: string, query: ListQuery | Record<string, unknown>): void {
    if (!this.config.logQueries) return;
    const compiled = 'model' in query && 'order' in query && this.driver.compile ? this.driver.compile(query as ListQuery) : undefined;
    this.log.query.info(`${this.name}.${action}`, { model: this.name, action, query, compiled });
  }

  /** Runs driver work; native errors become typed DatabaseErrors (the original kept as cause). */
  private async db<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const info = this.driver.translateError(err) ?? { type: 'database_error' as const };
      // model-layer validators (mongoose): the same 422 shape as the library's own (decision 24)
      if (info.type === 'validation_error' && info.errors && Object.keys(info.errors).length > 0) {
        this.log.db.warn(`${this.name}: model validation failed`, { errors: info.errors });
        throw new ValidationError(info.errors);
      }
      throw new DatabaseError(info, { cause: err });
    }
  }
}
