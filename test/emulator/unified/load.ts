import fs from 'node:fs';
import path from 'node:path';
import { EJSON } from 'bson';

/** The specification folders the suite runs, relative to `source/` of mongodb/specifications. */
export const SPEC_FOLDERS = ['crud', 'transactions', 'transactions-convenient-api', 'sessions', 'index-management', 'collection-management', 'retryable-writes', 'retryable-reads'];

export type Json = Record<string, unknown>;

export interface SpecTest {
  description: string;
  runOnRequirements?: Json[];
  skipReason?: string;
  operations: Json[];
  expectEvents?: Json[];
  outcome?: Json[];
}

export interface SpecFile {
  folder: string;
  file: string;
  description: string;
  schemaVersion: string;
  runOnRequirements?: Json[];
  createEntities?: Json[];
  initialData?: Json[];
  tests: SpecTest[];
}

/**
 * The unified JSON files of one folder: `tests/unified/*.json`, or `tests/*.json` for the folders
 * that keep them at the top (sessions, index-management, collection-management). Files are read
 * from the checkout at run time only: their licence forbids copying them into this repository.
 */
export function loadFolder(specsDir: string, folder: string): SpecFile[] {
  const base = path.join(specsDir, 'source', folder, 'tests');
  const unified = path.join(base, 'unified');
  const dir = fs.existsSync(unified) ? unified : base;
  if (!fs.existsSync(dir)) throw new Error(`no test folder ${dir} (is MONGODB_SPECS_DIR a checkout of mongodb/specifications?)`);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      // relaxed: numbers arrive as JS numbers (the matcher compares numerics flexibly anyway)
      const parsed = EJSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'), { relaxed: true }) as unknown as Omit<SpecFile, 'folder' | 'file'>;
      return { ...parsed, folder, file: file.replace(/\.json$/, '') };
    });
}
