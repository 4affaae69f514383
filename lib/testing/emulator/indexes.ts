import { Query } from 'mingo';
import { CommandError } from './errors';
import { formatValue, isPlainObject, keyOf, pathValues, type Doc } from './values';

export interface IndexSpec {
  v: number;
  key: Record<string, unknown>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Doc;
  [option: string]: unknown;
}

export interface IndexKey {
  key: string;
  values: unknown[];
}

/** Default name the server gives an index: `a_1_b_-1`. */
export function defaultIndexName(key: Record<string, unknown>): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${String(v)}`)
    .join('_');
}

/**
 * One index. Only unique indexes keep entries (index key -> owning _id key) because that is the
 * only thing the emulator enforces; other indexes are metadata for listIndexes.
 */
export class Index {
  readonly fields: string[];
  readonly entries = new Map<string, string>();
  private readonly partial?: Query;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    if (spec.partialFilterExpression) this.partial = new Query(spec.partialFilterExpression);
  }

  get unique(): boolean {
    return this.spec.unique === true || this.spec.name === '_id_';
  }

  /** Keys a document contributes; none when sparse/partial excludes it. */
  keysOf(doc: Doc): IndexKey[] {
    if (this.partial && !this.partial.test(doc)) return [];
    const perField = this.fields.map((f) => pathValues(doc, f));
    if (this.spec.sparse && perField.every((vals) => vals.length === 0)) return [];
    // Missing fields index as null; arrays expand to one key per element (multikey).
    let combos: unknown[][] = [[]];
    for (const vals of perField) {
      const options = vals.length ? vals : [null];
      const next: unknown[][] = [];
      for (const c of combos) for (const v of options) next.push([...c, v]);
      combos = next;
    }
    return combos.map((values) => ({ key: values.map(keyOf).join('\u0001'), values }));
  }

  add(doc: Doc, idKey: string): void {
    if (!this.unique) return;
    for (const k of this.keysOf(doc)) this.entries.set(k.key, idKey);
  }

  remove(doc: Doc, idKey: string): void {
    if (!this.unique) return;
    for (const k of this.keysOf(doc)) if (this.entries.get(k.key) === idKey) this.entries.delete(k.key);
  }

  duplicateError(ns: string, values: unknown[]): CommandError {
    const keyValue: Doc = {};
    this.fields.forEach((f, i) => (keyValue[f] = values[i]));
    const rendered = `{ ${this.fields.map((f, i) => `${f}: ${formatValue(values[i])}`).join(', ')} }`;
    return new CommandError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${ns} index: ${this.spec.name} dup key: ${rendered}`,
      { keyPattern: { ...this.spec.key }, keyValue },
    );
  }

  toDocument(): Doc {
    return { ...this.spec };
  }
}

export function idIndex(): Index {
  return new Index({ v: 2, key: { _id: 1 }, name: '_id_' });
}

/** Validate a createIndexes entry and normalise it to an IndexSpec. */
export function parseIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw) || !isPlainObject(raw.key) || Object.keys(raw.key).length === 0) {
    throw new CommandError('BadValue', 'Index spec must have a non-empty key document');
  }
  const name = typeof raw.name === 'string' ? raw.name : defaultIndexName(raw.key);
  const spec: IndexSpec = { ...raw, v: 2, key: raw.key, name };
  return spec;
}
