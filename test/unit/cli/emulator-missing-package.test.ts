import { expect } from 'chai';
import { missingPackage } from '../../../lib/cli/missing-package';
import { runCli, USAGE } from '../../../lib/cli/main';
import { runEmulatorCommand } from '../../../lib/cli/emulator-command';
import type { CliIo } from '../../../lib/cli/cli-io';

/** A real MODULE_NOT_FOUND error, with the require stack Node puts in its message. */
function notFound(specifier: string): Error {
  try {
    require(specifier);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${specifier} is installed`);
}

function buffers(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (t) => (out += t), err: (t) => (err += t) }, out: () => out, err: () => err };
}

/** `generic-resource-rest emulator` without its optional peers: the install command, never a stack. */
describe('the emulator command without bson or mingo', () => {
  it('missingPackage names the package of a module that cannot be found, nothing else', () => {
    expect(missingPackage(notFound('mingo-absent-for-test/updater'))).to.equal('mingo-absent-for-test');
    expect(missingPackage(notFound('@absent-scope/pkg/deep'))).to.equal('@absent-scope/pkg');
    expect(missingPackage(notFound('./no-such-file-of-ours'))).to.equal(null);
    expect(missingPackage(new Error('boom'))).to.equal(null);
    expect(missingPackage(undefined)).to.equal(null);
  });

  it('answers one line naming the missing package and the command that installs the emulator\'s packages', async () => {
    const missing = notFound('mingo-absent-for-test');
    const b = buffers();
    const failing = async () => {
      throw missing;
    };
    await runEmulatorCommand(['--port', '0'], b.io, USAGE, Promise.resolve(), failing).then(
      () => expect.fail('should have failed'),
      (error: Error) => {
        expect(error.message).to.equal('emulator: the mingo-absent-for-test package is not installed; the emulator needs bson and mingo: npm install --save-dev bson mingo');
        expect(error.message).not.to.match(/Require stack|node_modules|\n/);
      },
    );
  });

  it('the help text names the versions the command accepts, 4.4 included', async () => {
    const b = buffers();
    const code = await runCli(['emulator', '--version', '3.6'], b.io);
    expect(code).to.equal(2);
    expect(b.err()).to.include('--version 3.6 is not one the emulator plays (4.4, 5.0, 6.0, 7.0, 8.0)');
    expect(USAGE).to.include('[--version 4.4|5.0|6.0|7.0|8.0]');
    expect(USAGE).not.to.include('[--version 5.0|6.0|7.0|8.0]');
  });

  it('any other start failure is passed on as it is', async () => {
    const b = buffers();
    const boom = new Error('port in use');
    const error = await runEmulatorCommand(['--port', '0'], b.io, USAGE, Promise.resolve(), async () => {
      throw boom;
    }).catch((e: unknown) => e);
    expect(error).to.equal(boom);
  });
});
