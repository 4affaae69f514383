import { ddlCommands } from './ddl';
import { handshakeCommands } from './handshake';
import { readCommands } from './read';
import { transactionCommands } from './transactions';
import { writeCommands } from './write';
import type { Handler } from './context';

/** Every command the emulator answers; anything else is CommandNotFound (59). */
export const commands: Record<string, Handler> = {
  ...handshakeCommands,
  ...readCommands,
  ...writeCommands,
  ...ddlCommands,
  ...transactionCommands,
};

export { EmulatorState } from './context';
export type { CommandContext, Handler } from './context';
