import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { runCli } from '../../lib/cli/main';
import { parseEmulatorArgs } from '../../lib/cli/emulator-command';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';

/**
 * The emulator as a server process: `generic-resource-rest emulator` and startMongo({process:
 * 'child'}). Two connections share its data; SIGSTOP makes requests time out, SIGCONT brings it
 * back; stop() leaves no process; the CLI refuses bad command lines with exit 2.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function captured(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('emulator: as a child process', function () {
  this.timeout(60_000);

  describe('startMongo({process: "child"})', () => {
    let handle: MongoHandle;
    before(async () => {
      handle = await startMongo({ process: 'child' });
    });
    after(async () => {
      await handle?.stop();
    });

    it('runs in another process and prints a replica-set URI', () => {
      expect(handle.kind).to.equal('emulator');
      expect(handle.child?.pid).to.be.a('number');
      expect(handle.child?.pid).to.not.equal(process.pid);
      expect(alive(handle.child!.pid)).to.equal(true);
      expect(handle.uri).to.match(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?replicaSet=rs0&directConnection=true$/);
    });

    it('two mongoose connections see each other\'s writes', async () => {
      const a = await mongoose.createConnection(handle.uri, { dbName: 'shared' }).asPromise();
      const b = await mongoose.createConnection(handle.uri, { dbName: 'shared' }).asPromise();
      try {
        const schema = new mongoose.Schema({ name: String });
        const A = a.model('Thing', schema);
        const B = b.model('Thing', schema);
        await A.create({ name: 'from a' });
        expect((await B.findOne({ name: 'from a' }).lean())?.name).to.equal('from a');
        await B.updateOne({ name: 'from a' }, { name: 'changed by b' });
        expect(await A.countDocuments({ name: 'changed by b' })).to.equal(1);
        // and a transaction committed on one is seen by the other
        await a.transaction(async (session) => {
          await A.create([{ name: 'in txn' }], { session });
        });
        expect(await B.countDocuments({ name: 'in txn' })).to.equal(1);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('SIGSTOP makes a request time out; SIGCONT brings the server back', async () => {
      // driver 7.8: timeoutMS has no effect; socketTimeoutMS bounds a request, and without retries
      // the first timeout is the answer (a retry would wait on a new connection's handshake)
      const client = new MongoClient(handle.uri, { serverSelectionTimeoutMS: 10_000, socketTimeoutMS: 500, connectTimeoutMS: 1000, retryReads: false });
      try {
        await client.connect();
        const coll = client.db('paused').collection('c');
        await coll.insertOne({ before: 1 });
        handle.child!.pause();
        let failure: Error | undefined;
        const started = Date.now();
        try {
          await coll.findOne({});
        } catch (error) {
          failure = error as Error;
        }
        // the driver's error is a timeout: of the operation, or of selecting a server that stopped answering
        expect(`${failure?.name}: ${failure?.message}`).to.match(/Timeout|timed out/i);
        expect(Date.now() - started).to.be.below(5000);
        handle.child!.resume();
        const resumed = Date.now();
        expect(await coll.countDocuments({ before: 1 })).to.equal(1);
        expect(Date.now() - resumed).to.be.below(5000);
        await coll.insertOne({ after: 1 });
        expect(await coll.countDocuments()).to.equal(2);
      } finally {
        handle.child!.resume();
        await client.close();
      }
    });
  });

  it('stop() ends the process, also a paused one, and leaves nothing behind', async () => {
    const handle = await startMongo({ process: 'child', topology: 'standalone', version: '5.0' });
    const client = new MongoClient(handle.uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    const build = await client.db('admin').command({ buildInfo: 1 });
    expect(build.version).to.equal('5.0.26');
    await client.close();
    const pid = handle.child!.pid;
    handle.child!.pause();
    await handle.stop();
    expect(alive(pid)).to.equal(false);
    expect((await handle.child!.exited).code).to.equal(0);
    await handle.stop(); // twice is fine
  });

  it('a killed server: requests fail, stop() still resolves', async () => {
    const handle = await startMongo({ process: 'child' });
    const client = new MongoClient(handle.uri, { serverSelectionTimeoutMS: 1000 });
    try {
      await client.connect();
      handle.child!.kill();
      expect((await handle.child!.exited).signal).to.equal('SIGKILL');
      let failure: Error | undefined;
      try {
        await client.db('x').collection('y').findOne({});
      } catch (error) {
        failure = error as Error;
      }
      expect(failure).to.be.instanceOf(Error);
    } finally {
      await client.close();
      await handle.stop();
    }
  });

  describe('the CLI command', () => {
    it('prints its usage with --help (exit 0)', async () => {
      const { code, out } = await captured(['emulator', '--help']);
      expect(code).to.equal(0);
      expect(out).to.contain('emulator [--port <n>] [--topology replset|standalone]');
      expect((await captured(['--help'])).out).to.contain('emulator [--port');
    });

    for (const [args, message] of [
      [['--port', 'abc'], '--port abc is not a TCP port'],
      [['--port', '70000'], '--port 70000 is not a TCP port'],
      [['--topology', 'sharded'], '--topology sharded is not replset or standalone'],
      [['--version', '3.6'], '--version 3.6 is not one the emulator plays'],
      [['--verbose'], "Unknown option '--verbose'"],
      [['extra'], 'unexpected argument "extra"'],
    ] as const) {
      it(`rejects ${args.join(' ')} with exit 2 and the usage`, async () => {
        const { code, err } = await captured(['emulator', ...args]);
        expect(code).to.equal(2);
        expect(err).to.contain(message);
        expect(err).to.contain('Usage: generic-resource-rest');
      });
    }

    it('defaults to port 27017', () => {
      expect(parseEmulatorArgs([]).port).to.equal(27017);
      expect(parseEmulatorArgs(['--port', '0', '--version', '8.0', '--topology', 'standalone'])).to.deep.equal({ help: false, port: 0, topology: 'standalone', version: '8.0' });
    });

    it('as a process: exit 2 on a bad command line', () => {
      const main = path.resolve(__dirname, '../../lib/cli/main.ts');
      const run = spawnSync(process.execPath, ['--import', 'tsx', main, 'emulator', '--topology', 'x'], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).to.equal(2);
      expect(run.stderr).to.contain('--topology x is not replset or standalone');
    });

    it('runs until the callback says stop and prints the URI first', async () => {
      let out = '';
      let stop!: () => void;
      const until = new Promise<void>((resolve) => (stop = resolve));
      const { runEmulatorCommand } = await import('../../lib/cli/emulator-command');
      const running = runEmulatorCommand(['--port', '0', '--topology', 'standalone'], { out: (t) => void (out += t), err: () => undefined }, 'usage', until);
      while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 20));
      const uri = out.trim();
      expect(uri).to.match(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true$/);
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
      await client.connect();
      expect((await client.db('admin').command({ ping: 1 })).ok).to.equal(1);
      await client.close();
      stop();
      expect(await running).to.equal(0);
    });
  });
});
