/** Docker's error shape, `{"message": "…"}`, for every error the API answers. */
import type { ServerResponse } from 'node:http';

export interface DockerError {
  readonly message: string;
}

export const sendDockerError = (res: ServerResponse, status: number, message: string): void => {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ message } satisfies DockerError);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
};
