import type { EventLog, FollowOptions, LogRecord, Subscription } from '@shoal/eventlog';
import { EventBuilder, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { consoleHistory } from './console-history.fixture';
import { ConsoleFeed } from './console-feed';
import type { ConsoleView } from './console-wire';

/** The log, except that its first follower fails at once, as one does when the broker stays away. */
const failingFirstFollower = (log: EventLog): { readonly log: EventLog; readonly followers: () => number } => {
  let followers = 0;
  const failing = Object.assign(Object.create(log) as EventLog, {
    follow(from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options?: FollowOptions): Subscription {
      followers++;
      if (followers === 1) {
        setImmediate(() => options?.onError?.(new Error('the broker is away')));
        return { stop: async () => undefined };
      }
      return log.follow(from, handler, options);
    },
  });
  return { log: failing, followers: () => followers };
};

describe('ConsoleFeed', () => {
  let api: StandaloneApi;

  beforeAll(async () => {
    api = await startStandaloneApi([]);
    await api.append(consoleHistory());
  });
  afterAll(() => api.close());

  it('follows the log again when its follower gives up, and pushes what comes after', async () => {
    const { log, followers } = failingFirstFollower(api.log);
    const feed = new ConsoleFeed(log, api.view);
    const views: ConsoleView[] = [];
    const unsubscribe = feed.subscribe((view) => views.push(view));
    try {
      const b = new EventBuilder('c1', Date.parse('2026-03-01T00:00:00.000Z'));
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(followers()).toBe(2);
      await api.append([b.event('ServiceCreated', { id: 's9', spec: serviceSpec('late') }, { instance: 'api-9' })]);
      for (let i = 0; i < 100 && !views.some((view) => view.position === 15); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(views.map((view) => view.position)).toEqual([14, 15]);
      expect(views[1]!.services.map((service) => service.name)).toEqual(['web', 'late']);
    } finally {
      unsubscribe();
    }
    expect(feed.listening).toBe(0);
  });
});
