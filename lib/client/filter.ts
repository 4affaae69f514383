/**
 * A filter builder typed by a resource's generated types: a field that does not exist (a relation
 * name included), an operator that does not fit the field's type (`like` on a number, `>` on a
 * boolean) or a relation that does not exist is a compile error. It produces exactly the `oper`
 * strings the server parses (`field|operator|value`).
 */
import type { FieldsOf, RelatedTypes, RelationName, ResourceTypes, UntypedRelations } from './resource-types';

type Comparable = number | string | Date;
type Base<V> = NonNullable<V> extends Array<infer I> ? I : NonNullable<V>;
type IsAny<V> = 0 extends 1 & V ? true : false;

export type EqualityOperator = '=' | '!=';
export type OrderOperator = '>' | '>=' | '<' | '<=';
export type PatternOperator = 'like' | 'not like' | 'ilike' | 'not ilike';
export type ListOperator = 'in' | 'not in';
export type RangeOperator = 'between' | 'not between';
export type AnyOperator = EqualityOperator | OrderOperator | PatternOperator | ListOperator | RangeOperator;

/**
 * The operators a field of type V accepts. A field of type `any` (the record type of a schema that
 * did not resolve: an import the compiler could not find) takes them all, so the only error is
 * the one about the import, not a misleading one about the operator.
 */
export type OperatorFor<V> =
  IsAny<V> extends true
    ? AnyOperator
    : [Base<V>] extends [boolean]
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

/** The builder of a resource's filters: its own fields, its relations for `has()`. */
export type FilterFor<T extends ResourceTypes> = FilterBuilder<T['record'], FieldsOf<T>, T>;

/**
 * R: the record; F: the field names filters take (every key of R by default); T: the resource's
 * generated types, whose relations `has()` takes (any relation when absent).
 */
export class FilterBuilder<R, F extends keyof R & string = keyof R & string, T extends ResourceTypes = { record: R & object; create: object; update: object; relations: UntypedRelations }> {
  /** `field operator value`, typed by the field. */
  where<K extends F, O extends OperatorFor<R[K]>>(field: K, operator: O, value: ValueFor<O, R[K]>): FilterNode {
    const text = Array.isArray(value) ? JSON.stringify(value.map((v) => (v instanceof Date ? v.toISOString() : v))) : literal(value);
    return `${field}|${operator}|${text}`;
  }

  isNull<K extends F>(field: K): FilterNode {
    return `${field}|null`;
  }

  notNull<K extends F>(field: K): FilterNode {
    return `${field}|not null`;
  }

  and(...nodes: FilterNode[]): FilterNode {
    return { and: nodes };
  }

  or(...nodes: FilterNode[]): FilterNode {
    return { or: nodes };
  }

  /**
   * Records having a related record (of relation `name`) matching the inner filter; the inner
   * builder is typed by the related resource: `f.has('reviews', (r) => r.where('rating', '>=', 4))`.
   */
  has<K extends RelationName<T>>(relation: K, build: (f: FilterFor<RelatedTypes<T, K>>) => FilterNode | FilterNode[]): FilterNode {
    const inner = build(new FilterBuilder() as FilterFor<RelatedTypes<T, K>>);
    return { [relation]: Array.isArray(inner) ? inner : [inner] };
  }
}

/** The `oper` parameter of a built filter (a top-level node is wrapped in `and`). */
export function toOper(node: FilterNode): Record<string, FilterNode[]> {
  if (typeof node === 'string') return { and: [node] };
  return node as Record<string, FilterNode[]>;
}
