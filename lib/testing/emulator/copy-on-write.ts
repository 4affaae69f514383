/**
 * Copy-on-write aggregation. Documents flowing through a pipeline may be the stored documents
 * themselves (or share parts with them: $lookup joins stored foreign documents, a memoised join
 * result serves many inputs, $facet hands one array to every facet). Committed documents are
 * immutable (the store and snapshots share them), so a stage that may change the documents it
 * receives runs on deep copies, made by the internal stage `$__emuClone` that `copyOnWrite` puts
 * before it; a stage known to leave its input untouched reads the shared documents directly.
 *
 * Before this, mingo ran under CLONE_INPUT: every input document was copied at the start of every
 * pipeline and sub-pipeline, and its $facet copied its whole input once per facet (once only to
 * count it) — most of the list's time and garbage at a few thousand documents.
 */
import { cloneDeep, isPlainObject, type Doc } from './values';

/* mingo's subpath modules: not reachable with moduleResolution "node", loaded at runtime. */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Lazy } = require('mingo/lazy') as { Lazy: (docs: Doc[]) => Lazy };
const { Aggregator } = require('mingo/aggregator') as { Aggregator: new (pipeline: Doc[], options: unknown) => { run: (docs: Doc[]) => Doc[] } };
/* eslint-enable @typescript-eslint/no-require-imports */

interface Lazy {
  map(fn: (o: Doc) => Doc): Lazy;
  transform(fn: (docs: Doc[]) => Lazy): Lazy;
}

export const CLONE_STAGE = '$__emuClone';

/**
 * Stages that never change a document they receive, nor anything reachable from it: they filter,
 * reorder or count it, or build new documents that may reference its values. Checked against the
 * implementations: $sort, $project, $addFields/$set, $group are the emulator's (new objects, spread
 * copies on the changed paths); $lookup/$unionWith/$facet and `$__emuLookup` read their input and
 * run sub-pipelines that are themselves copy-on-write. Any other stage (mingo's $unwind writes the
 * unwound value into its input, $setWindowFields/$fill/$redact/$bucketAuto and the rest are not
 * audited) gets a copy first.
 */
const READ_ONLY = new Set([
  '$match', '$sort', '$skip', '$limit', '$project', '$addFields', '$set', '$group', '$facet',
  '$lookup', '$unionWith', '$__emuLookup', '$count', CLONE_STAGE,
  // no input (its documents are the command's own); mingo requires it to be the first stage
  '$documents',
]);
/** Stages whose output documents are their input documents: after a copy they stay copies. */
const PASS_THROUGH = new Set(['$match', '$sort', '$skip', '$limit', CLONE_STAGE]);

/** `stages` with a `$__emuClone` before every stage that may change its input (none twice in a row). */
export function copyOnWrite(stages: Doc[]): Doc[] {
  const out: Doc[] = [];
  let copies = false;
  for (const stage of stages) {
    const name = isPlainObject(stage) ? Object.keys(stage)[0] : '';
    if (!READ_ONLY.has(name) && !copies) {
      out.push({ [CLONE_STAGE]: 1 });
      copies = true;
    }
    out.push(stage);
    // a stage that may change documents made its own output from copies, but anything else it
    // returns (values of $$ROOT, sub-documents) is assumed shared again
    copies = copies && PASS_THROUGH.has(name);
  }
  return out;
}

/** `$__emuClone`: every document deep-copied (bson value classes are immutable and shared). */
export function cloneStage(coll: Lazy): Lazy {
  return coll.map((o) => cloneDeep(o));
}

/**
 * `$facet` without copies: every facet's (copy-on-write) pipeline runs on the same input array.
 * mingo's own $facet forces CLONE_INPUT, copying the whole input once per facet.
 */
export function facetStage(coll: Lazy, expr: unknown, options: unknown): Lazy {
  return coll.transform((docs) => {
    const o: Doc = {};
    for (const [k, sub] of Object.entries(expr as Doc)) o[k] = new Aggregator(sub as Doc[], options).run(docs);
    return Lazy([o]);
  });
}
