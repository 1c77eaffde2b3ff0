import { EventBuilder, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { startApi } from '../testing/api-harness';
import { consoleHistory } from './console-history.fixture';
import { ConsoleFeed } from './console-feed';
import { ConsoleModule } from './console.module';
import type { ConsoleDiff, ConsoleView } from './console-wire';
import { SseParser } from './web/sse-parser';
import type { SseEvent } from './web/sse-parser';

/** The views a live stream sends, as they come. */
class LiveReader {
  readonly views: ConsoleView[] = [];
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];
  readonly response: Promise<Response>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.response = fetch(url, { headers, signal: this.controller.signal });
    void this.response.then(async (response) => {
      const parser = new SseParser();
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          for (const event of parser.push(decoder.decode(chunk, { stream: true }))) this.take(event);
        }
      } catch {
        // Aborted.
      }
    });
  }

  /** The first view (already sent or to come) that `test` accepts. */
  async until(test: (view: ConsoleView) => boolean, ms = 5_000): Promise<ConsoleView> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.views.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such view in ${ms} ms; got positions ${this.views.map((view) => view.position).join(', ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.controller.abort();
  }

  private take(event: SseEvent): void {
    if (event.event === 'view') this.views.push(JSON.parse(event.data) as ConsoleView);
    for (const wake of this.waiters.splice(0)) wake();
  }
}

describe('the console', () => {
  let api: StandaloneApi;

  beforeAll(async () => {
    api = await startStandaloneApi([ConsoleModule]);
    await api.append(consoleHistory());
  });
  afterAll(() => api.close());

  describe('its page', () => {
    it('serves the page, its style and its script bundled from the TypeScript sources, all from this API', async () => {
      const page = await api.get('/console');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await page.text();
      expect(html).toContain('<script src="/console/console.js" defer></script>');
      // Nothing from another origin.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

      const script = await api.get('/console/console.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      const js = await script.text();
      // One bundle: the sources' modules inlined (no import left), their TypeScript types gone.
      expect(js).not.toMatch(/^\s*import\s/m);
      expect(js).toContain('/shoal/v1/console/live');
      expect(js).toContain('SseParser');
      expect(js).not.toMatch(/:\s*ConsoleView\b/);
      expect(() => new Function(js)).not.toThrow();

      const style = await api.get('/console/console.css');
      expect(style.headers.get('content-type')).toMatch(/^text\/css/);
      expect(await style.text()).toContain('.mode.live');
    });
  });

  describe('live', () => {
    it('sends the cluster at once, then again when the log moves, without being asked', async () => {
      const reader = new LiveReader(`${api.url}/shoal/v1/console/live`);
      try {
        const response = await reader.response;
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const first = await reader.until(() => true);
        expect(first).toMatchObject({ position: 14, highWaterMark: 14, cluster: 'c1' });
        expect(first.at).toBe(consoleHistory()[13]!.at);
        expect(first.services.map((service) => [service.name, service.running, service.desired])).toEqual([['web', 1, 2]]);

        const b = new EventBuilder('c1', Date.parse('2026-02-01T00:00:00.000Z'));
        const api2 = serviceSpec('api', { kind: 'replicated', replicas: 3 });
        await api.append([b.event('ServiceCreated', { id: 's2', spec: api2 }, { instance: 'api-2' })]);
        const next = await reader.until((view) => view.position === 15);
        expect(next.services.map((service) => [service.name, service.desired])).toEqual([['web', 2], ['api', 3]]);
        expect(next.at).toBe('2026-02-01T00:00:01.000Z');
      } finally {
        reader.close();
      }
    });

    it('follows the log only while someone listens', async () => {
      const feed = api.app.get(ConsoleFeed);
      const reader = new LiveReader(`${api.url}/shoal/v1/console/live`);
      await reader.until(() => true);
      expect(feed.listening).toBe(1);
      reader.close();
      for (let i = 0; i < 50 && feed.listening > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(feed.listening).toBe(0);
    });
  });

  describe('the time machine', () => {
    const json = async <T>(path: string): Promise<{ status: number; body: T }> => {
      const response = await api.get(path);
      return { status: response.status, body: (await response.json()) as T };
    };

    it('shows the cluster as it was at an offset, with the time of its last record', async () => {
      const { status, body } = await json<ConsoleView>('/shoal/v1/console/state?at=8');
      expect(status).toBe(200);
      expect(body).toMatchObject({ position: 8, at: consoleHistory()[7]!.at });
      expect(body.highWaterMark).toBeGreaterThanOrEqual(14);
      expect(body.services.map((service) => [service.name, service.running, service.desired, service.version])).toEqual([['web', 1, 1, 1]]);
      expect(body.tasksByState).toEqual({ RUNNING: 1 });
      const empty = await json<ConsoleView>('/shoal/v1/console/state?at=0');
      expect(empty.body).toMatchObject({ position: 0, services: [], nodes: [], taskCount: 0 });
      expect(empty.body.at).toBeUndefined();
    });

    it('says what changed between two points', async () => {
      const { status, body } = await json<ConsoleDiff>('/shoal/v1/console/diff?from=8&to=14');
      expect(status).toBe(200);
      expect(body.from).toEqual({ position: 8, at: consoleHistory()[7]!.at });
      expect(body.services.changed[0]!.changes).toContainEqual({ field: 'mode', from: 'replicated ×1', to: 'replicated ×2' });
      expect(body.tasks.added).toEqual([{ id: 't2', name: 'web.2' }]);
      expect(body.nodes.changed).toEqual([{ id: 'n2', name: 'node-2', changes: [{ field: 'status', from: 'ready', to: 'down' }] }]);
    });

    it.each([
      ['/shoal/v1/console/state?at=yesterday', /\bat: must be an offset/],
      ['/shoal/v1/console/state?at=999', /\bat: offset 999 is past the end of the log/],
      ['/shoal/v1/console/diff?from=1', /\bto: is required: an offset or an ISO 8601 time$/],
      ['/shoal/v1/console/diff?from=x&to=2', /\bfrom: must be an offset/],
      ['/shoal/v1/console/diff?from=1&to=999', /\bto: offset 999 is past the end of the log/],
    ])('answers %s with 400 naming the field', async (path, message) => {
      const { status, body } = await json<{ message: string }>(path);
      expect(status).toBe(400);
      expect(body.message).toMatch(message);
    });
  });
});

describe('the console in the API, over TCP', () => {
  const AUDITOR = 'auditor-token-0123456789';

  it('serves its page without a token, and everything the page reads only with one (an auditor reads)', async () => {
    const api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor', name: 'audit' }] });
    try {
      for (const path of ['/console', '/console/console.js', '/console/console.css']) expect((await api.request('GET', path)).status).toBe(200);
      expect((await api.request('POST', '/console')).status).toBe(401);
      expect((await api.request('GET', '/shoal/v1/console/state')).status).toBe(401);
      expect((await api.request('GET', '/shoal/v1/console/live')).status).toBe(401);
      const state = await api.request('GET', '/shoal/v1/console/state', { token: AUDITOR });
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ position: 1, cluster: api.cluster });
      // Over the socket, as every other endpoint, no token.
      expect((await api.request('GET', '/shoal/v1/console/diff?from=0&to=1', { socket: true })).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
