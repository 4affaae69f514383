import { deserialize, serialize, Long, type Document } from 'bson';

/** Wire protocol opcodes the emulator speaks (no compression is advertised, so no OP_COMPRESSED). */
export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
const EXHAUST_ALLOWED = 1 << 16;

/**
 * Documents are decoded to plain JS values (numbers, Date, RegExp) so mingo can compare them;
 * ObjectId/Decimal128/Binary/Timestamp stay bson classes and are re-encoded unchanged.
 */
export const DESERIALIZE_OPTIONS = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

export interface Request {
  opCode: typeof OP_MSG | typeof OP_QUERY;
  requestId: number;
  /** The command document; OP_MSG kind-1 sequences are merged in as array fields. */
  command: Document;
  /** Database the command targets ($db for OP_MSG, the `db.$cmd` prefix for OP_QUERY). */
  db: string;
  /** Client does not want a reply (w:0 writes). */
  moreToCome: boolean;
  exhaustAllowed: boolean;
}

/** Split a byte stream into whole messages; returns the messages and the unconsumed tail. */
export function splitMessages(buffer: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  while (buffer.length - offset >= 4) {
    const length = buffer.readInt32LE(offset);
    // a length below the 16-byte header would never advance (0) or walk backwards: the stream is unreadable
    if (length < 16) throw new Error(`invalid message length ${length}`);
    if (buffer.length - offset < length) break;
    messages.push(buffer.subarray(offset, offset + length));
    offset += length;
  }
  return { messages, rest: buffer.subarray(offset) };
}

function readCString(buf: Buffer, offset: number): [string, number] {
  const end = buf.indexOf(0, offset);
  return [buf.toString('utf8', offset, end), end + 1];
}

export function parseMessage(msg: Buffer): Request {
  const requestId = msg.readInt32LE(4);
  const opCode = msg.readInt32LE(12);
  if (opCode === OP_MSG) return parseOpMsg(msg, requestId);
  if (opCode === OP_QUERY) return parseOpQuery(msg, requestId);
  throw new Error(`unsupported opCode ${opCode}`);
}

function parseOpMsg(msg: Buffer, requestId: number): Request {
  const flags = msg.readUInt32LE(16);
  // The CRC-32C trailer is not verified: the transport is loopback and the driver computes it correctly.
  const end = flags & CHECKSUM_PRESENT ? msg.length - 4 : msg.length;
  let offset = 20;
  let command: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = msg[offset];
    offset += 1;
    if (kind === 0) {
      const size = msg.readInt32LE(offset);
      command = deserialize(msg.subarray(offset, offset + size), DESERIALIZE_OPTIONS);
      offset += size;
    } else if (kind === 1) {
      const size = msg.readInt32LE(offset);
      const sectionEnd = offset + size;
      const [identifier, docsStart] = readCString(msg, offset + 4);
      const docs: Document[] = [];
      let p = docsStart;
      while (p < sectionEnd) {
        const docSize = msg.readInt32LE(p);
        docs.push(deserialize(msg.subarray(p, p + docSize), DESERIALIZE_OPTIONS));
        p += docSize;
      }
      sequences.push([identifier, docs]);
      offset = sectionEnd;
    } else {
      throw new Error(`unsupported OP_MSG section kind ${kind}`);
    }
  }
  if (!command) throw new Error('OP_MSG without a body section');
  for (const [identifier, docs] of sequences) command[identifier] = docs;
  return {
    opCode: OP_MSG,
    requestId,
    command,
    db: typeof command.$db === 'string' ? command.$db : 'admin',
    moreToCome: (flags & MORE_TO_COME) !== 0,
    exhaustAllowed: (flags & EXHAUST_ALLOWED) !== 0,
  };
}

/** Legacy OP_QUERY is only used by drivers for the first handshake against `admin.$cmd`. */
function parseOpQuery(msg: Buffer, requestId: number): Request {
  const [fullName, afterName] = readCString(msg, 20);
  const docStart = afterName + 8; // numberToSkip, numberToReturn
  const size = msg.readInt32LE(docStart);
  let command = deserialize(msg.subarray(docStart, docStart + size), DESERIALIZE_OPTIONS);
  // Old drivers wrap the command as {$query: {...}, $readPreference: ...}.
  if (command.$query && typeof command.$query === 'object') command = command.$query as Document;
  const db = fullName.endsWith('.$cmd') ? fullName.slice(0, -5) : fullName.split('.')[0];
  return { opCode: OP_QUERY, requestId, command, db, moreToCome: false, exhaustAllowed: false };
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(nextResponseId++ & 0x7fffffff, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/**
 * One reply. `stream`: a reply of an exhaust stream (the driver's awaited hello): flagged
 * moreToCome and answering `responseTo` (the previous reply of the stream, or the request).
 */
export function encodeReply(request: Request, reply: Document, stream?: { responseTo: number }): Buffer {
  const body = serialize(reply);
  if (stream) {
    const flags = Buffer.alloc(5);
    flags.writeUInt32LE(MORE_TO_COME, 0);
    return Buffer.concat([header(16 + 5 + body.length, stream.responseTo, OP_MSG), flags, body]);
  }
  if (request.opCode === OP_QUERY) {
    // OP_REPLY: responseFlags, cursorID (int64), startingFrom, numberReturned, documents.
    const fixed = Buffer.alloc(20);
    fixed.writeInt32LE(0, 0);
    fixed.writeBigInt64LE(0n, 4);
    fixed.writeInt32LE(0, 12);
    fixed.writeInt32LE(1, 16);
    return Buffer.concat([header(16 + 20 + body.length, request.requestId, OP_REPLY), fixed, body]);
  }
  const flags = Buffer.alloc(5); // flagBits = 0, then section kind 0
  return Buffer.concat([header(16 + 5 + body.length, request.requestId, OP_MSG), flags, body]);
}

export function toLong(n: number): Long {
  return Long.fromNumber(n);
}
