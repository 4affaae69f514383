/** What the serializer keeps of a pipeline's documents: fields, nested relations, pivot keys. */
export interface Shape {
  /** Output fields in order; `id` is read from `_id`. */
  fields: string[];
  relations: RelationShape[];
}

export interface RelationShape {
  name: string;
  /** The document key the `$lookup` fills, when it is not `name` (the relation shares its name with its key field). */
  as?: string;
  many: boolean;
  /** belongsToMany: keys of the `pivot` object each related record carries. */
  pivot: string[] | null;
  shape: Shape;
}
