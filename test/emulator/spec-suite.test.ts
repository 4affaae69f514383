import { MongoClient } from 'mongodb';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
import { skipReason } from './unified/classify';
import { loadFolder, SPEC_FOLDERS } from './unified/load';
import { Tally } from './unified/report';
import { serverInfo, type ServerInfo } from './unified/requirements';
import { runSpecTest } from './unified/runner';

/**
 * MongoDB's unified-format spec tests (mongodb/specifications) against the testing kit's MongoDB:
 * the emulator offline, or the server of MONGODB_URI. The specs are read from MONGODB_SPECS_DIR at
 * run time (their licence forbids copying them here). Tests the played server cannot run
 * (runOnRequirements; TEST_MONGO_TOPOLOGY / TEST_MONGO_VERSION choose it), tests needing fail points
 * the emulator lacks (it has failCommand) and tests with operations the runner does not implement
 * are reported as pending with their reason, and counted; totals print at the end.
 *
 *   MONGODB_SPECS_DIR=/work/specs npx mocha test/emulator/spec-suite.test.ts
 *   (add --grep <text> for one file or test; SPEC_FOLDERS=crud,sessions for some folders)
 */
const specsDir = process.env.MONGODB_SPECS_DIR;

describe('MongoDB unified spec tests', function () {
  if (!specsDir) {
    it('not run: set MONGODB_SPECS_DIR to a checkout of mongodb/specifications');
    return;
  }
  const folders = process.env.SPEC_FOLDERS ? process.env.SPEC_FOLDERS.split(',') : SPEC_FOLDERS;
  const tally = new Tally();
  let handle: MongoHandle;
  let internal: MongoClient;
  let info: ServerInfo;

  before(async function () {
    this.timeout(60_000);
    handle = await startMongo();
    internal = new MongoClient(handle.uri, { serverSelectionTimeoutMS: 10_000 });
    await internal.connect();
    info = await serverInfo(internal, handle.uri);
    await internal.db('admin').command({ killAllSessions: [] }).catch(() => undefined);
  });

  after(async function () {
    this.timeout(30_000);
    console.log(tally.render());
    await internal?.close();
    await handle?.stop();
  });

  for (const folder of folders) {
    describe(folder, function () {
      for (const file of loadFolder(specsDir, folder)) {
        describe(file.file, function () {
          for (const test of file.tests) {
            it(test.description, async function () {
              this.timeout(30_000);
              const reason = skipReason(file, test, info);
              if (reason) {
                tally.skip(folder, reason);
                if (this.test) this.test.title += ` [skipped: ${reason}]`;
                this.skip();
              }
              try {
                await runSpecTest(file, test, internal, handle.uri);
                tally.result(folder, true);
              } catch (err) {
                tally.result(folder, false);
                throw err;
              }
            });
          }
        });
      }
    });
  }
});
