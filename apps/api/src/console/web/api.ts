/**
 * The console's calls to the API: the same authentication as any client. Over TCP a bearer
 * token, given once in the page and kept for the tab (sessionStorage); where the API needs
 * none (its unix socket, a verified client certificate) the page sends none and asks for none.
 */
import { SseParser } from './sse-parser';
import type { SseEvent } from './sse-parser';

const TOKEN_KEY = 'shoal.console.token';

export const savedToken = (): string | undefined => sessionStorage.getItem(TOKEN_KEY) ?? undefined;
export const saveToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

/** An answer that was not 2xx: its status and the API's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const headers = (): HeadersInit => {
  const token = savedToken();
  return token ? { Authorization: `Bearer ${token}`, Accept: 'application/json' } : { Accept: 'application/json' };
};

const failure = async (response: Response): Promise<ApiError> => {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON: the status says enough.
  }
  return new ApiError(response.status, message);
};

/** GET `path` as JSON. */
export const getJson = async <T>(path: string, signal?: AbortSignal): Promise<T> => {
  const response = await fetch(path, { headers: headers(), ...(signal ? { signal } : {}) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
};

/** Reads the server-sent events at `path` until the stream ends or `signal` aborts. */
export const readEvents = async (path: string, onEvent: (event: SseEvent) => void, signal: AbortSignal): Promise<void> => {
  const response = await fetch(path, { headers: { ...headers(), Accept: 'text/event-stream' }, signal });
  if (!response.ok) throw await failure(response);
  if (!response.body) throw new Error('the stream has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const event of parser.push(value)) onEvent(event);
  }
};
