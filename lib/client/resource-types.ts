/**
 * What the generator writes per resource, and the types the client derives from it: the field
 * names (relations excluded), the relation names and paths (`category`, `category.parent`,
 * `category:name,id`), the sort keys (own fields and to-one paths: `category.name`) and the record
 * a read answers once `select` and `relations` are applied.
 */

/** One relation of a resource: the related record, to-one or to-many, and the related resource's own types. */
export interface RelationTypes {
  many: boolean;
  record: object;
  types?: ResourceTypes;
}

/** What the generator writes per resource. `fields` and `relations` are absent in hand-written schemas (then every key of the record is a field). */
export interface ResourceTypes {
  record: object;
  create: object;
  update: object;
  /** The record's own field names: what `select`, filters, `attr` and `orderby` take. */
  fields?: string;
  /** Relation name -> the related record, to-one or to-many. */
  relations?: object;
}

export type ApiSchema = Record<string, ResourceTypes>;

/** Any relation: the fallback of a schema without relation types (hand-written, or built by hand). */
export type UntypedRelations = Record<string, { many: boolean; record: any }>;

/** The record's own field names. */
export type FieldsOf<T extends ResourceTypes> = T extends { fields: infer F extends string } ? F & keyof T['record'] : keyof T['record'] & string;
/** Relation name -> RelationTypes. */
export type RelationsOf<T extends ResourceTypes> = T extends { relations: infer R extends object } ? R : UntypedRelations;
export type RelationName<T extends ResourceTypes> = keyof RelationsOf<T> & string;

/** The related resource's types (its record alone when the generator did not say more). */
export type RelatedTypes<T extends ResourceTypes, K> = K extends keyof RelationsOf<T>
  ? RelationsOf<T>[K] extends { types: infer X extends ResourceTypes }
    ? X
    : RelationsOf<T>[K] extends { record: infer R extends object }
      ? { record: R; create: object; update: object }
      : never
  : never;

type Depth = unknown[];
/** Relation paths up to three levels (`category`, `category.parent`, `category.parent.products`). */
export type RelationPath<T extends ResourceTypes, D extends Depth = []> = D['length'] extends 3
  ? never
  : { [K in RelationName<T>]: K | `${K}.${RelationPath<RelatedTypes<T, K>, [...D, 1]>}` }[RelationName<T>];

type TypesAtPath<T extends ResourceTypes, P extends string> = P extends `${infer H}.${infer Rest}` ? TypesAtPath<RelatedTypes<T, H>, Rest> : RelatedTypes<T, P>;
type Split<S extends string> = S extends `${infer A},${infer B}` ? A | Split<B> : S;

/** Every form a `relations` item may take (interface spec: `name`, `name:c1,c2`, `a.b`, `a.b:c1,c2`, `all`). */
export type RelationItem<T extends ResourceTypes> = 'all' | RelationPath<T> | `${RelationPath<T>}:${string}`;

/** One `relations` item checked: itself when valid, else what it may be (or which columns the related resource lacks). */
export type CheckRelation<T extends ResourceTypes, I> = I extends `${infer P}:${infer C}`
  ? P extends RelationPath<T>
    ? string extends C
      ? I // columns not known at compile time (an array typed RelationItem<T>[])
      : [Exclude<Split<C>, FieldsOf<TypesAtPath<T, P>>>] extends [never]
        ? I
        : `${P} has no column ${Exclude<Split<C>, FieldsOf<TypesAtPath<T, P>>> & string}`
    : RelationItem<T>
  : I extends 'all' | RelationPath<T>
    ? I
    : RelationItem<T>;

/** The `relations` option: each item checked (an unknown relation, path segment or column does not compile). */
export type CheckRelations<T extends ResourceTypes, L extends readonly string[]> = { [I in keyof L]: CheckRelation<T, L[I]> };

type ToOneName<T extends ResourceTypes> = { [K in RelationName<T>]: RelationsOf<T>[K] extends { many: false } ? K : never }[RelationName<T>];

/** A sort key: an own field, or a field of a to-one relation (`category.name`, decision 13). */
export type OrderKey<T extends ResourceTypes> = FieldsOf<T> | { [K in ToOneName<T>]: `${K}.${FieldsOf<RelatedTypes<T, K>>}` }[ToOneName<T>];
export type Direction = 'asc' | 'desc' | 'ASC' | 'DESC';
export type OrderBy<T extends ResourceTypes> = Partial<Record<OrderKey<T>, Direction>> | Array<Partial<Record<OrderKey<T>, Direction>>>;

type Root<I> = I extends `${infer P}:${string}` ? Root<P> : I extends `${infer H}.${string}` ? H : I;
type LoadedName<T extends ResourceTypes, L extends readonly string[]> = 'all' extends L[number] ? RelationName<T> : Root<L[number]> & RelationName<T>;
type LoadedValue<T extends ResourceTypes, K extends string> = K extends keyof T['record']
  ? Exclude<T['record'][K], undefined>
  : RelationsOf<T>[K & keyof RelationsOf<T>] extends { many: true; record: infer R }
    ? R[]
    : RelationsOf<T>[K & keyof RelationsOf<T>] extends { record: infer R }
      ? R | null
      : unknown;

/**
 * The relations a read loaded (`relations: ['category', 'tags:name']`): present, to-one ones
 * possibly null. From an array that is not a literal tuple (a variable typed `RelationItem<T>[]`)
 * which relations were asked is not known: they are optional.
 */
export type Loaded<T extends ResourceTypes, L extends readonly string[]> = number extends L['length']
  ? { [K in LoadedName<T, L>]?: LoadedValue<T, K> }
  : { [K in LoadedName<T, L>]: LoadedValue<T, K> };

/**
 * A record as a read answers it: the fields `select` named (and `id`, always there; every own
 * field without `select`), plus the relations loaded. Keys the server adds to attach relations
 * (foreign keys) are there at run time too, but typed only when selected.
 */
export type Selected<T extends ResourceTypes, S extends readonly string[], L extends readonly string[]> = ([S[number]] extends [never]
  ? Pick<T['record'], FieldsOf<T>>
  : Pick<T['record'], (S[number] | 'id') & keyof T['record']>) &
  Loaded<T, L>;
