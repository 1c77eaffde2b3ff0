/**
 * Server-sent events, parsed as the HTML standard's EventSource parses them: fields `event`,
 * `data` (lines joined by "\n") and `id`; a line starting with ":" is a comment; a blank
 * line dispatches. The text may arrive cut anywhere (a chunk of a fetch stream): what is
 * left of a line waits for the next chunk. EventSource itself cannot send an
 * Authorization header, so the console reads the stream with fetch and parses it here.
 */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id?: string;

  /** The events `chunk` completes, in order. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const events: SseEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone "\r" at the end may be the first half of "\r\n": wait for what follows.
      if (end < 0 || (end === this.buffer.length - 1 && this.buffer[end] === '\r')) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return undefined;
      }
      const event: SseEvent = { event: this.event || 'message', data: this.data.join('\n'), ...(this.id !== undefined ? { id: this.id } : {}) };
      this.event = '';
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}
