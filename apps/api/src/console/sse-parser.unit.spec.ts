import { SseParser } from './web/sse-parser';

describe('SseParser (the page reads the live stream with it)', () => {
  it('gives each event when its blank line arrives, however the text is cut', () => {
    const text = ': hello\n\nid: 7\nevent: view\ndata: {"a":\ndata: 1}\n\nevent: view\r\ndata: two\r\n\r\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { event: 'view', data: '{"a":\n1}', id: '7' },
      { event: 'view', data: 'two', id: '7' },
    ]);
    // The same text a character at a time gives the same events.
    const parser = new SseParser();
    const cut = [...text].flatMap((char) => parser.push(char));
    expect(cut).toEqual(whole);
  });

  it('takes an event without a name as "message", ignores comments and unknown fields, and drops an event without data', () => {
    const parser = new SseParser();
    expect(parser.push('retry: 10\nevent: nothing\n\n: keep-alive\n\ndata:x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('waits for the rest of a line cut after its carriage return', () => {
    const parser = new SseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ event: 'message', data: 'a' }]);
  });
});
