import { Query } from 'mingo';
import { CommandError, toCommandError } from './errors';
import type { Collection } from './store';
import { isPlainObject, type Doc } from './values';

/**
 * Document validation (`validator` of create/collMod) with query operators; `$jsonSchema` is refused
 * when the validator is set. validationLevel strict/moderate/off and validationAction error/warn as
 * on the server; `bypassDocumentValidation: true` skips the check.
 */
export function checkValidator(validator: unknown): void {
  if (validator === undefined) return;
  if (!isPlainObject(validator)) throw new CommandError('TypeMismatch', "BSON field 'validator' is the wrong type, expected type 'object'");
  if (JSON.stringify(validator).includes('"$jsonSchema"')) throw new CommandError('NotImplemented', '$jsonSchema validators are not supported by the MongoDB emulator (query-operator validators are)');
  try {
    new Query(validator);
  } catch (err) {
    throw toCommandError(err);
  }
}

/** Throws DocumentValidationFailure (121) when `next` fails the collection's validator. `previous`: the document before an update. */
export function validateDocument(coll: Collection, next: Doc, previous: Doc | undefined, bypass: boolean): void {
  const validator = coll.options.validator;
  if (bypass || !isPlainObject(validator) || Object.keys(validator).length === 0) return;
  const level = coll.options.validationLevel ?? 'strict';
  if (level === 'off' || coll.options.validationAction === 'warn') return;
  const query = new Query(validator);
  // moderate: updates to documents that already failed validation are not checked
  if (level === 'moderate' && previous && !query.test(previous)) return;
  if (query.test(next)) return;
  throw new CommandError('DocumentValidationFailure', 'Document failed validation', {
    errInfo: { failingDocumentId: next._id, details: { operatorName: Object.keys(validator)[0], specifiedAs: validator, reason: 'the document does not match the validator' } },
  });
}
