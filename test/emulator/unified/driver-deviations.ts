/**
 * Spec tests that fail because of the Node.js driver, not the server: skipped with the reason.
 * Keys: `folder/file` or `folder/file/test`.
 */
export const DRIVER_DEVIATIONS: Record<string, string> = {
  'retryable-writes/bulkWrite/First insertOne is never committed': 'Node.js driver deviation: its BulkWriteError result lists the insertedIds of a batch that failed as a whole',
  'crud/bypassDocumentValidation/BulkWrite passes bypassDocumentValidation: false': 'Node.js driver deviation: it omits bypassDocumentValidation: false',
  'crud/bypassDocumentValidation/FindOneAndReplace passes bypassDocumentValidation: false': 'Node.js driver deviation: it omits bypassDocumentValidation: false',
  'crud/bypassDocumentValidation/FindOneAndUpdate passes bypassDocumentValidation: false': 'Node.js driver deviation: it omits bypassDocumentValidation: false',
  'crud/bypassDocumentValidation/Aggregate with $out passes bypassDocumentValidation: false': 'Node.js driver deviation: it omits bypassDocumentValidation: false',
  'crud/bypassDocumentValidation/InsertMany passes bypassDocumentValidation: false': 'Node.js driver deviation: it omits bypassDocumentValidation: false',
};

/**
 * Client options that make the Node.js driver send what the spec expects, per `folder/file`:
 * the driver replaces an `_id` of null with a new ObjectId unless `forceServerObjectId` is set.
 */
const CLIENT_WORKAROUNDS: Record<string, Record<string, unknown>> = {
  'crud/create-null-ids': { forceServerObjectId: true },
};

export function clientWorkaround(folder: string, file: string): Record<string, unknown> {
  return CLIENT_WORKAROUNDS[`${folder}/${file}`] ?? {};
}

export function driverDeviation(folder: string, file: string, test: string): string | undefined {
  return DRIVER_DEVIATIONS[`${folder}/${file}/${test}`] ?? DRIVER_DEVIATIONS[`${folder}/${file}`];
}
