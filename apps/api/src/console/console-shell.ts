/**
 * The console's shell: the page and its script and style, the same bytes for everyone and
 * no data in them. They are served without a token, as a sign-in page is: a browser cannot
 * send a bearer header when it opens a URL. Everything the page shows it then asks of the
 * API with the token given in it, under the same rules as any client (an auditor reads).
 */
export const CONSOLE_PAGE = '/console';
export const CONSOLE_SCRIPT = '/console/console.js';
export const CONSOLE_STYLE = '/console/console.css';

const SHELL = new Set([CONSOLE_PAGE, `${CONSOLE_PAGE}/`, CONSOLE_SCRIPT, CONSOLE_STYLE]);

/** A GET or HEAD of the console's shell. */
export const isConsoleShell = (method: string, path: string): boolean => {
  const verb = method.toUpperCase();
  return (verb === 'GET' || verb === 'HEAD') && SHELL.has(path);
};
