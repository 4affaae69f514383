import { expect } from 'chai';
import { SseParser } from '../../../lib/client/changes';

/** The typed client's Server-Sent Events parser (WHATWG rules). */
describe('SSE parser', () => {
  it('reads id, event and data; a blank line ends an event; comments are skipped', () => {
    const parser = new SseParser();
    expect(parser.push(': stream open\n\nid: 1\nevent: created\ndata: {"id":1}\n\n')).to.deep.equal([{ type: 'created', data: '{"id":1}', lastEventId: '1' }]);
  });

  it('joins events split across chunks, CRLF and CR line ends, several data lines', () => {
    const parser = new SseParser();
    expect(parser.push('id: 7\r\nevent: upd')).to.deep.equal([]);
    expect(parser.push('ated\r\ndata: a\rdata: b\r')).to.deep.equal([]);
    expect(parser.push('\n\r\n')).to.deep.equal([{ type: 'updated', data: 'a\nb', lastEventId: '7' }]);
  });

  it('an event without a name is a message; the last id carries over', () => {
    const parser = new SseParser();
    parser.push('id: 3\ndata: x\n\n');
    expect(parser.push('data: y\n\n')).to.deep.equal([{ type: 'message', data: 'y', lastEventId: '3' }]);
  });
});
