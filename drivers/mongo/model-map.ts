/** Where each MODEL lives in MongoDB: the compiler's only knowledge beyond the Catalog. */
export interface MongoModelInfo {
  /** Collection name of the model's documents. */
  collection: string;
}

export type MongoModelMap = Record<string, MongoModelInfo>;
