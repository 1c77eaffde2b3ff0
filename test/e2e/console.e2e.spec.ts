import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { TaskState } from '@shoal/contracts';
import { newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { eventually } from '../../libs/testing/src/eventually';
import { launchChromium } from './console-browser';

/** Where the screenshots go: the test's output (reports/ is not in the repository). */
const OUTPUT = join(__dirname, '..', '..', 'reports', 'console');
const AUDITOR = 'console-auditor-token-0123456789';

interface DockerService {
  readonly ID: string;
  readonly Version: { readonly Index: number };
  readonly Spec: Record<string, unknown> & { readonly Mode: { readonly Replicated: { readonly Replicas: number } } };
}

/**
 * The little of the DOM the page is read with. These functions run in the browser (puppeteer
 * sends their source); this program is compiled without the DOM's types, so they are named here.
 */
interface PageElement {
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
}
interface SliderElement {
  value: string;
  readonly max: string;
  dispatchEvent(event: Event): boolean;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getElementById(id: string): unknown;
};

/** What the page shows, read from its DOM. */
const shown = (page: Page) =>
  page.evaluate(() => {
    const text = (selector: string) => document.querySelector(selector)?.textContent?.trim();
    return {
      mode: text('#mode'),
      point: text('#point'),
      web: text('tr[data-service="web"] .replicas'),
      running: text('#states [data-state="RUNNING"] .count'),
      nodes: [...document.querySelectorAll('#nodes tr[data-node]')].map((row) => [row.getAttribute('data-node'), row.querySelector('.status')?.textContent, row.querySelector('.availability')?.textContent]),
      slider: { value: (document.getElementById('slider') as SliderElement).value, max: (document.getElementById('slider') as SliderElement).max },
    };
  });

const until = <T>(page: Page, what: string, test: (seen: Awaited<ReturnType<typeof shown>>) => T | undefined | false, timeoutMs = 60_000) => {
  let last: unknown;
  return eventually(
    `the page shows ${what}`,
    async () => {
      const seen = await shown(page);
      last = seen;
      return test(seen);
    },
    { timeoutMs, everyMs: 100, explain: () => last },
  );
};

// The console as a person uses it: `npm start`'s all-in-one process (every component, the
// API and three simulated nodes on the embedded log), the page opened in chromium with an
// auditor's token, a service created and scaled through Docker's API, the page following
// on its own, then the slider moved back to before the scale.
describe('the console in a browser', () => {
  let browser: Browser | undefined;
  let deployment: ShoalProcesses | undefined;

  beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));
  afterEach(async () => {
    await browser?.close();
    await deployment?.close();
  });

  /** `npm start` on a data dir of its own, with an auditor's token; its API's TCP port and socket. */
  const startShoal = async (): Promise<{ readonly port: number; readonly socket: string }> => {
    deployment = ShoalProcesses.embedded('console', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0', SHOAL_SIM_NODES: '3' });
    writeFileSync(join(deployment.dataDir, 'tokens.json'), JSON.stringify([{ token: AUDITOR, role: 'auditor', name: 'console-test' }]));
    const shoal = deployment.start();
    const [, port] = await shoal.waitFor(/"api":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000);
    await shoal.waitFor(/Ctrl-C stops it/, 90_000);
    return { port: Number(port), socket: join(deployment.dataDir, 'shoal.sock') };
  };

  it('follows a service created and scaled, and shows the cluster as it was when the slider moves back', async () => {
    browser = await launchChromium();
    const { port, socket } = await startShoal();

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));
    page.on('requestfailed', (request) => {
      // The live stream is cut when the page goes; nothing else may fail.
      if (!request.url().endsWith('/console/live')) failures.push(`${request.url()}: ${request.failure()?.errorText}`);
    });
    const requested = new Set<string>();
    const paths: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      requested.add(url.origin);
      paths.push(url.pathname);
    });

    // Over TCP the API wants a token: the page asks for it once.
    await page.goto(`http://127.0.0.1:${port}/console`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#login:not([hidden])');
    await page.type('#token', AUDITOR);
    await page.click('#login button[type=submit]');

    // Live: the three simulated nodes, as the log has them, ready and active.
    await until(page, 'three nodes ready', (seen) => seen.mode === 'live' && seen.nodes.length === 3 && seen.nodes.every(([, status]) => status === 'ready'));
    expect((await shown(page)).nodes.every(([, , availability]) => availability === 'active')).toBe(true);

    const created = await dockerApi<{ ID: string }>(socket, 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
      Mode: { Replicated: { Replicas: 1 } },
    });
    expect(created.status).toBe(201);
    await until(page, 'web 1/1', (seen) => seen.web === '1/1' && seen.running === '1');
    // The point before the scale: everything on the log once web ran its one replica.
    const before = (await dockerApi<{ highWaterMark: number }>(socket, 'GET', '/readyz')).body.highWaterMark;

    const service = (await dockerApi<DockerService>(socket, 'GET', `/v1.47/services/${created.body.ID}`)).body;
    const scaled = await dockerApi(socket, 'POST', `/v1.47/services/${service.ID}/update?version=${service.Version.Index}`, {
      ...service.Spec,
      Mode: { Replicated: { Replicas: 3 } },
    });
    expect(scaled.status).toBe(200);
    // Pushed: the page was not reloaded and polls nothing — its shell, then the live stream (refused without the token, then with it).
    const live = await until(page, 'web 3/3', (seen) => (seen.web === '3/3' && seen.running === '3' ? seen : undefined));
    expect([...paths].sort()).toEqual(['/console', '/console/console.css', '/console/console.js', '/shoal/v1/console/live', '/shoal/v1/console/live']);
    expect(Number(live.slider.value)).toBe(Number(live.slider.max));
    expect(Number(live.slider.max)).toBeGreaterThan(before);
    await page.screenshot({ path: join(OUTPUT, 'console-live.png'), fullPage: true });

    // The time machine: the slider back to before the scale shows web as it was.
    await page.$eval(
      '#slider',
      (slider, offset) => {
        (slider as unknown as SliderElement).value = String(offset);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
      },
      before,
    );
    const past = await until(page, `the cluster at offset ${before}`, (seen) => (seen.mode === 'the past' && seen.point?.startsWith(`offset ${before} of`) && seen.web === '1/1' ? seen : undefined));
    expect(past.running).toBe('1');
    expect(past.point).toMatch(/ · \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
    await page.screenshot({ path: join(OUTPUT, 'console-past.png'), fullPage: true });

    // What changed from there to now: web scaled, two tasks more.
    await page.click('#mark');
    await page.click('#now');
    await until(page, 'live again', (seen) => seen.mode === 'live' && seen.web === '3/3');
    await page.click('#compare');
    await page.waitForSelector('#diff [data-changed="web"]');
    const diff = await page.$eval('#diff', (element) => element.textContent ?? '');
    expect(diff).toContain('mode replicated ×1 → replicated ×3');
    expect(diff).toMatch(/tasks: 2 added/);

    // A task's story: the records that touched it, with the scheduler's reason.
    await page.click('#tasks tr[data-task]');
    await page.waitForSelector('#story [data-story] .placement');
    const story = await page.$eval('#story', (element) => element.textContent ?? '');
    expect(story).toMatch(/TasksCreated/);
    expect(story).toMatch(/TasksAssigned/);
    expect(story).toMatch(/Placed: .+/);

    // The verify report.
    await page.click('#verify');
    await page.waitForSelector('#verify-result [data-agree]');
    expect(await page.$eval('#verify-result [data-agree]', (element) => element.getAttribute('data-agree'))).toBe('true');
    expect(await page.$eval('#verify-result', (element) => element.textContent ?? '')).toContain('no poison records');
    await page.screenshot({ path: join(OUTPUT, 'console-audit.png'), fullPage: true });

    // The token was given once: a reload asks for none, and the live cluster is back.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await until(page, 'web 3/3 after a reload', (seen) => seen.mode === 'live' && seen.web === '3/3');
    expect(await page.$eval('#login', (form) => form.hasAttribute('hidden'))).toBe(true);

    expect(failures).toEqual([]);
    expect([...requested]).toEqual([`http://127.0.0.1:${port}`]);
  });

  // What a live cluster rarely shows on cue, written on the log as the components would: a
  // placement refused (the node it named is not there) before the one that held, and a
  // record no build can read.
  it('tells a task\'s story with the proposals refused, and names the poison records verify found', async () => {
    browser = await launchChromium();
    const api: ApiHarness = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor', name: 'console-test' }] });
    try {
      const b = api.events;
      const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
      await api.append(
        b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
        b.event('ServiceCreated', { id: 's1', spec: web }),
        b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 })] }),
        b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n-gone', why: 'n-gone has room' }] }),
        b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'node-1 has the fewest tasks of web' }] }),
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      );
      const { last } = await api.log.append([{ key: api.cluster, value: '{"not":"an envelope"' }]);
      await api.view.waitFor(last + 1);

      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 1000 });
      await page.goto(`http://127.0.0.1:${api.port}/console`, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('#login:not([hidden])');
      await page.type('#token', AUDITOR);
      await page.click('#login button[type=submit]');
      await until(page, 'web 1/1', (seen) => seen.web === '1/1');

      await page.click('#tasks tr[data-task="t1"]');
      await page.waitForSelector('#story [data-story="t1"]');
      const refused = await page.$$eval('#story li.refused', (items) => items.map((item) => item.textContent ?? ''));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatch(/TasksAssigned/);
      expect(refused[0]).toMatch(/n-gone has room/);
      expect(refused[0]).toMatch(/refused: .*n-gone/);
      expect(await page.$eval('#story .placement', (element) => element.textContent)).toBe('Placed: node-1 has the fewest tasks of web');

      await page.click('#verify');
      await page.waitForSelector('#verify-result [data-agree]');
      const report = await page.$eval('#verify-result', (element) => element.textContent ?? '');
      expect(report).toContain('every replay agrees');
      expect(report).toMatch(/1 poison record\b/);
      expect(report).toMatch(new RegExp(`@${last}: `));
      await page.screenshot({ path: join(OUTPUT, 'console-refusals.png'), fullPage: true });
    } finally {
      await api.close();
    }
  });
});
