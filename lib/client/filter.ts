/**
 * A filter builder typed by a resource's record type: a field that does not exist, or an operator
 * that does not fit the field's type (`like` on a number, `>` on a boolean), is a compile error.
 * It produces exactly the `oper` strings the server parses (`field|operator|value`).
 */

type Comparable = number | string | Date;
type Base<V> = NonNullable<V> extends Array<infer I> ? I : NonNullable<V>;

export type EqualityOperator = '=' | '!=';
export type OrderOperator = '>' | '>=' | '<' | '<=';
export type PatternOperator = 'like' | 'not like' | 'ilike' | 'not ilike';
export type ListOperator = 'in' | 'not in';
export type RangeOperator = 'between' | 'not between';

/** The operators a field of type V accepts. */
export type OperatorFor<V> = [Base<V>] extends [boolean]
  ? EqualityOperator | ListOperator
  : [Base<V>] extends [string]
    ? EqualityOperator | OrderOperator | PatternOperator | ListOperator | RangeOperator
    : [Base<V>] extends [Comparable]
      ? EqualityOperator | OrderOperator | ListOperator | RangeOperator
      : EqualityOperator | ListOperator;

/** The value an operator takes for a field of type V. */
export type ValueFor<O, V> = O extends ListOperator ? Array<Base<V> | null> : O extends RangeOperator ? [Base<V>, Base<V>] : O extends PatternOperator ? string : Base<V>;

/** A filter node as the server reads it. */
export type FilterNode = string | { and: FilterNode[] } | { or: FilterNode[] } | { [relation: string]: FilterNode[] };

function literal(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

export class FilterBuilder<R> {
  /** `field operator value`, typed by the field. */
  where<K extends keyof R & string, O extends OperatorFor<R[K]>>(field: K, operator: O, value: ValueFor<O, R[K]>): FilterNode {
    const text = Array.isArray(value) ? JSON.stringify(value.map((v) => (v instanceof Date ? v.toISOString() : v))) : literal(value);
    return `${field}|${operator}|${text}`;
  }

  isNull<K extends keyof R & string>(field: K): FilterNode {
    return `${field}|null`;
  }

  notNull<K extends keyof R & string>(field: K): FilterNode {
    return `${field}|not null`;
  }

  and(...nodes: FilterNode[]): FilterNode {
    return { and: nodes };
  }

  or(...nodes: FilterNode[]): FilterNode {
    return { or: nodes };
  }

  /** Records having a related record (of relation `name`) matching the inner filter. */
  has<K extends string, T>(relation: K, build: (f: FilterBuilder<T>) => FilterNode | FilterNode[]): FilterNode {
    const inner = build(new FilterBuilder<T>());
    return { [relation]: Array.isArray(inner) ? inner : [inner] };
  }
}

/** The `oper` parameter of a built filter (a top-level node is wrapped in `and`). */
export function toOper(node: FilterNode): Record<string, FilterNode[]> {
  if (typeof node === 'string') return { and: [node] };
  return node as Record<string, FilterNode[]>;
}
