import type { AnyOperator, FilterBuilder, FilterFor, FilterNode } from './filter';
import type { FieldsOf, OrderKey, RelatedTypes, ResourceTypes } from './resource-types';

type Field<R> = keyof R & string;
/** Fields of R holding numbers: what `sum` and `avg` take. */
export type NumericField<R> = { [K in Field<R>]: NonNullable<R[K]> extends number ? K : never }[Field<R>];
/** Fields of R holding numbers, strings or dates: what `min` and `max` take. */
export type OrderedField<R> = { [K in Field<R>]: NonNullable<R[K]> extends number | string | Date ? K : never }[Field<R>];

/** The functions of an aggregate (decision 55): `count` takes "*" or fields; the others fields. */
export interface AggregateFunctions<R> {
  count?: '*' | readonly Field<R>[];
  count_distinct?: readonly Field<R>[];
  sum?: readonly NumericField<R>[];
  avg?: readonly NumericField<R>[];
  min?: readonly OrderedField<R>[];
  max?: readonly OrderedField<R>[];
}

/** A group field: one of the record's own fields, or a field of a to-one relation (`category.name`). */
export type GroupField<T extends ResourceTypes> = OrderKey<T>;

/** The units a date field may be bucketed by (decision 84). */
export type BucketUnit = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

/**
 * A `group_by` item bucketing a date field (decision 84): the group's value, under the field's
 * name, is the instant its local minute, hour, day, week, month, quarter or year starts in `tz`
 * (an IANA zone, default UTC); a week starts on Monday unless `week_start` says Sunday.
 */
export type BucketItem<G extends string> =
  | { field: G; bucket: Exclude<BucketUnit, 'week'>; tz?: string }
  | { field: G; bucket: 'week'; tz?: string; week_start?: 'monday' | 'sunday' };

/** The value of a group field: the field's type (or null); for `category.name`, the related field's. */
type GroupValue<T extends ResourceTypes, K extends string> = K extends keyof T['record']
  ? NonNullable<T['record'][K]> | null
  : K extends `${infer H}.${infer F}`
    ? F extends keyof RelatedTypes<T, H>['record']
      ? NonNullable<RelatedTypes<T, H>['record'][F]> | null
      : unknown
    : unknown;

type FunctionName<A> = { [F in keyof A & string]: A[F] extends readonly (infer X extends string)[] ? `${F}.${X}` : never }[keyof A & string];

/** What `having` filters on (decision 84): `count` (when asked, or no function is), `<function>.<field>` of the functions asked, and the group fields. */
export type HavingValues<T extends ResourceTypes, G extends string, A> = ([keyof A] extends [never] ? { count: number } : A extends { count: '*' } ? { count: number } : unknown) & { [K in G]: GroupValue<T, K> } & {
  [K in FunctionName<A>]: K extends `${'min' | 'max'}.${infer X}` ? (X extends keyof T['record'] ? NonNullable<T['record'][X]> : unknown) : number;
};

type Condition<N extends string> = `${N}|${AnyOperator}|${string}` | `${N}|null` | `${N}|not null`;
/** `having` as decision 84 writes it (`{"and": ["count|>|10", "sum.total|>=|100"]}`), its names checked. */
export type HavingTree<N extends string> = { and: Array<Condition<N> | HavingTree<N>> } | { or: Array<Condition<N> | HavingTree<N>> };

type Order<T extends ResourceTypes, G extends string, A> = Partial<Record<G | 'count' | `${keyof A & string}.${string}`, 'asc' | 'desc'>>;

export interface AggregateOptions<T extends ResourceTypes, G extends GroupField<T>, A extends AggregateFunctions<T['record']>> {
  filter?: (f: FilterFor<T>) => FilterNode;
  attr?: Partial<Pick<T['record'], FieldsOf<T>>>;
  soft_delete?: 'with' | 'only';
  /** At most 5 group fields: own fields or to-one relation fields (`category.name`), or date buckets (`{field: 'created_at', bucket: 'month', tz: 'Europe/Berlin'}`). */
  group_by?: readonly (G | BucketItem<G>)[];
  /** At most 20 function-field pairs; absent: `{count: '*'}`. */
  aggregate?: A;
  /** Keeps the groups matching (decision 84): `(h) => h.where('count', '>', 10)` or `{and: ['count|>|10']}`; names are the answer's. */
  having?: ((h: FilterBuilder<HavingValues<T, G, A>>) => FilterNode) | HavingTree<keyof HavingValues<T, G, A> & string>;
  /** By a group field, `count`, or `<function>.<field>`: `{'sum.price': 'desc'}`. */
  orderby?: Order<T, G, A> | Array<Order<T, G, A>>;
  pagination?: { page: number; pageSize?: number };
}

type Values<F, V> = F extends readonly (infer K extends string)[] ? { [P in K]: V } : never;
type ValueOf<R, K> = K extends keyof R ? NonNullable<R[K]> : unknown;

/** One answer item (decision 56): only the functions asked are present. */
export type AggregateItem<T extends ResourceTypes, G extends string, A extends AggregateFunctions<T['record']>> = { group: { [K in G]: GroupValue<T, K> } } & ([keyof A] extends [never]
  ? { count: number }
  : (A extends { count: '*' } ? { count: number } : A extends { count: readonly string[] } ? { count: Values<A['count'], number> } : unknown) &
      (A extends { sum: readonly string[] } ? { sum: Values<A['sum'], number | null> } : unknown) &
      (A extends { avg: readonly string[] } ? { avg: Values<A['avg'], number | null> } : unknown) &
      (A extends { min: readonly (infer K extends string)[] } ? { min: { [P in K]: ValueOf<T['record'], P> | null } } : unknown) &
      (A extends { max: readonly (infer K extends string)[] } ? { max: { [P in K]: ValueOf<T['record'], P> | null } } : unknown) &
      (A extends { count_distinct: readonly string[] } ? { count_distinct: Values<A['count_distinct'], number> } : unknown));
