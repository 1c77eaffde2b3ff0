/**
 * The console page: the live cluster, pushed by the API over server-sent events, and the
 * time machine over the log — a slider of offsets that shows the cluster as it was, a
 * task's story, what changed between two points, and the verify report.
 */
import type { ConsoleDiff, ConsoleView } from '../console-wire';
import { ApiError, forgetToken, getJson, readEvents, saveToken, savedToken } from './api';
import type { TaskHistory, VerifyReport } from './audit-answers';
import { byId, h, show } from './dom';
import { describeTime, renderDiff, renderStory, renderVerify, renderView } from './render';

const LIVE = '/shoal/v1/console/live';
const RECONNECT_MS = 1_000;
const SLIDE_SETTLE_MS = 120;

const slider = byId<HTMLInputElement>('slider');
const modeLabel = byId('mode');
const compare = byId<HTMLButtonElement>('compare');

/** The newest view the API pushed; the slider's end. */
let live: ConsoleView | undefined;
/** Whether the page follows the live cluster (the slider at the end) or shows a past point. */
let following = true;
/** The point remembered to compare with. */
let mark: number | undefined;
/** Each request the slider makes has a number: an answer that comes after a newer request is dropped. */
let asked = 0;
let settle: number | undefined;
let stream: AbortController | undefined;

const showError = (error: unknown): void => {
  const line = byId('error');
  line.hidden = error === undefined;
  line.textContent = error === undefined ? '' : error instanceof Error ? error.message : String(error);
};

const showView = (view: ConsoleView, past: boolean): void => {
  byId('cluster').textContent = view.cluster ? `cluster ${view.cluster}` : 'no cluster yet';
  modeLabel.textContent = past ? 'the past' : 'live';
  modeLabel.className = `mode ${past ? 'past' : 'live'}`;
  byId('point').textContent = `offset ${view.position} of ${live?.highWaterMark ?? view.highWaterMark} · ${describeTime(view.at)}`;
  const parts = renderView(view, (id) => void openStory(id));
  for (const [id, content] of Object.entries(parts)) show(byId(id), content);
  byId('main').hidden = false;
  byId('machine').hidden = false;
};

const onLive = (view: ConsoleView): void => {
  live = view;
  slider.max = String(view.highWaterMark);
  if (following) {
    slider.value = slider.max;
    showView(view, false);
  }
};

/** The cluster as it was at `position`, from a replay of the log. */
const travel = async (position: number): Promise<void> => {
  const mine = ++asked;
  try {
    const view = await getJson<ConsoleView>(`/shoal/v1/console/state?at=${position}`);
    if (mine === asked && !following) {
      showView(view, true);
      showError(undefined);
    }
  } catch (error) {
    if (mine === asked) showError(error);
  }
};

const onSlide = (): void => {
  const position = Number(slider.value);
  following = live !== undefined && position >= live.highWaterMark;
  window.clearTimeout(settle);
  if (following && live) {
    asked++;
    showView(live, false);
    return;
  }
  modeLabel.textContent = 'the past';
  modeLabel.className = 'mode past';
  byId('point').textContent = `offset ${position} · replaying…`;
  settle = window.setTimeout(() => void travel(position), SLIDE_SETTLE_MS);
};

const openStory = async (task: string): Promise<void> => {
  const panel = byId('story-panel');
  panel.hidden = false;
  show(byId('story'), h('p', { class: 'empty' }, `reading the log for ${task}…`));
  try {
    show(byId('story'), renderStory(await getJson<TaskHistory>(`/shoal/v1/audit/tasks/${encodeURIComponent(task)}/history`)));
  } catch (error) {
    show(byId('story'), h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
  }
  panel.scrollIntoView({ block: 'nearest' });
};

const compareWithMark = async (): Promise<void> => {
  if (mark === undefined) return;
  const here = Number(slider.value);
  const [from, to] = mark <= here ? [mark, here] : [here, mark];
  byId('diff-panel').hidden = false;
  show(byId('diff'), h('p', { class: 'empty' }, `replaying to offsets ${from} and ${to}…`));
  try {
    show(byId('diff'), renderDiff(await getJson<ConsoleDiff>(`/shoal/v1/console/diff?from=${from}&to=${to}`)));
  } catch (error) {
    show(byId('diff'), h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
  }
};

const verify = async (): Promise<void> => {
  const button = byId<HTMLButtonElement>('verify');
  button.disabled = true;
  show(byId('verify-result'), h('p', { class: 'empty' }, 'replaying the log…'));
  try {
    show(byId('verify-result'), renderVerify(await getJson<VerifyReport>('/shoal/v1/audit/verify')));
  } catch (error) {
    show(byId('verify-result'), h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
  } finally {
    button.disabled = false;
  }
};

const askForToken = (reason: string): void => {
  byId('login-reason').textContent = reason;
  byId('login').hidden = false;
  byId('main').hidden = true;
  byId('machine').hidden = true;
  modeLabel.textContent = 'signed out';
  modeLabel.className = 'mode';
};

/** Follows the live stream; on a drop, follows it again. Asks for a token when the API wants one. */
const connect = (): void => {
  stream?.abort();
  const controller = new AbortController();
  stream = controller;
  void readEvents(
    LIVE,
    (event) => {
      if (event.event === 'view') onLive(JSON.parse(event.data) as ConsoleView);
      showError(undefined);
    },
    controller.signal,
  ).then(
    () => !controller.signal.aborted && window.setTimeout(connect, RECONNECT_MS),
    (error: unknown) => {
      if (controller.signal.aborted) return;
      if (error instanceof ApiError && error.status === 401) {
        const had = savedToken() !== undefined;
        forgetToken();
        return askForToken(had ? `The API refused the token (${error.message}): give another.` : 'This API asks for a token: the operator’s admin.token, or an auditor’s from tokens.json.');
      }
      showError(error instanceof ApiError ? error : new Error(`the live stream stopped (${error instanceof Error ? error.message : String(error)}); reconnecting`));
      if (!(error instanceof ApiError && error.status === 403)) window.setTimeout(connect, RECONNECT_MS);
    },
  );
};

byId('login').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>('token');
  saveToken(input.value.trim());
  input.value = '';
  byId('login').hidden = true;
  connect();
});
slider.addEventListener('input', onSlide);
byId('now').addEventListener('click', () => {
  if (!live) return;
  slider.value = String(live.highWaterMark);
  onSlide();
});
byId('mark').addEventListener('click', () => {
  mark = Number(slider.value);
  byId('marked').textContent = `mark: offset ${mark}`;
  compare.disabled = false;
});
compare.addEventListener('click', () => void compareWithMark());
byId('verify').addEventListener('click', () => void verify());

connect();
