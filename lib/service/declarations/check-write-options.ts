import type { ResourceDeclaration } from '../../declaration';
import { DeclarationError } from '../../errors/declaration-error';
import type { ModelInfo } from '../../resource/model-info';

/**
 * Start-up checks of decisions 79 and 81: every `upsertKeys` set is backed by a unique index or
 * constraint of the model (else concurrent upserts could create two records), and the version
 * field is an integer field the body never writes. The app refuses to start, naming resource and keys.
 */
export function checkWriteOptions(decl: ResourceDeclaration, info: ModelInfo): void {
  const who = decl.MODEL;
  const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((f) => b.includes(f));
  for (const keys of decl.upsertKeys ?? []) {
    const named = `upsertKeys [${keys.join(', ')}] of ${decl.name}`;
    if (!Array.isArray(keys) || keys.length === 0) throw new DeclarationError(who, 'upsertKeys', `each set of match keys must name at least one field (${decl.name}).`);
    const unknown = keys.filter((f) => !Object.prototype.hasOwnProperty.call(info.fields, f));
    if (unknown.length > 0) throw new DeclarationError(who, 'upsertKeys', `${named}: ${unknown.map((u) => `"${u}"`).join(', ')} not a field of the model.`);
    if (!(info.uniqueKeys ?? []).some((unique) => sameSet(unique, keys))) {
      throw new DeclarationError(who, 'upsertKeys', `${named}: no unique index or constraint covers exactly these fields; add one (upserts match records by it, and without it concurrent upserts could create duplicates).`);
    }
  }
  const field = decl.versionField;
  if (field !== undefined) {
    const described = info.fields[field];
    if (!described) throw new DeclarationError(who, 'versionField', `"${field}" is not a field of the model; add an integer field for the version.`);
    if (described.type !== 'integer' && described.type !== 'number') throw new DeclarationError(who, 'versionField', `"${field}" must be an integer field (the record's version).`);
  }
  if (decl.requireIfMatch && field === undefined) throw new DeclarationError(who, 'requireIfMatch', 'needs a versionField (If-Match compares the record\'s version).');
}
