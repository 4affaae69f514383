/** Where each MODEL lives in MongoDB: the compiler's only knowledge beyond the Catalog. */
export interface StorageInfo {
  /** Collection name of the model's documents. */
  collection: string;
}

export type ModelMap = Record<string, StorageInfo>;
