import type { FilterBuilder, FilterNode } from './filter';

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

/** A group field: one of the record's own fields, or a to-one relation path (`category.name`). */
export type GroupField<R> = Field<R> | `${string}.${string}`;

export interface AggregateOptions<R, G extends GroupField<R>, A extends AggregateFunctions<R>> {
  filter?: (f: FilterBuilder<R>) => FilterNode;
  attr?: Partial<R>;
  soft_delete?: 'with' | 'only';
  /** At most 5 group fields. */
  group_by?: readonly G[];
  /** At most 20 function-field pairs; absent: `{count: '*'}`. */
  aggregate?: A;
  /** By a group field, `count`, or `<function>.<field>`: `{'sum.price': 'desc'}`. */
  orderby?: Partial<Record<G | 'count' | `${keyof A & string}.${string}`, 'asc' | 'desc'>> | Array<Partial<Record<G | 'count' | `${keyof A & string}.${string}`, 'asc' | 'desc'>>>;
  pagination?: { page: number; pageSize?: number };
}

type Values<F, V> = F extends readonly (infer K extends string)[] ? { [P in K]: V } : never;
type ValueOf<R, K> = K extends keyof R ? NonNullable<R[K]> : unknown;

/** The value type of a group field: the record's field type (or null), unknown for relation paths. */
type GroupValues<R, G extends string> = { [K in G]: K extends keyof R ? NonNullable<R[K]> | null : unknown };

/** One answer item (decision 56): only the functions asked are present. */
export type AggregateItem<R, G extends string, A extends AggregateFunctions<R>> = { group: GroupValues<R, G> } & ([keyof A] extends [never]
  ? { count: number }
  : (A extends { count: '*' } ? { count: number } : A extends { count: readonly string[] } ? { count: Values<A['count'], number> } : unknown) &
      (A extends { sum: readonly string[] } ? { sum: Values<A['sum'], number | null> } : unknown) &
      (A extends { avg: readonly string[] } ? { avg: Values<A['avg'], number | null> } : unknown) &
      (A extends { min: readonly (infer K extends string)[] } ? { min: { [P in K]: ValueOf<R, P> | null } } : unknown) &
      (A extends { max: readonly (infer K extends string)[] } ? { max: { [P in K]: ValueOf<R, P> | null } } : unknown) &
      (A extends { count_distinct: readonly string[] } ? { count_distinct: Values<A['count_distinct'], number> } : unknown));
