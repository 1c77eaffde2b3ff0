/**
 * A real browser for the console's end-to-end test: Debian's chromium, headless, driven by
 * puppeteer-core (no browser is downloaded). It reaches nothing but loopback: every host
 * name but 127.0.0.1 resolves to nothing, and chromium's own background traffic is off.
 * No chromium is a failure that says how to install it, never a skip.
 */
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';
import type { Browser } from 'puppeteer-core';

/** SHOAL_CHROMIUM, else Debian's. */
export const chromiumPath = (): string => process.env.SHOAL_CHROMIUM ?? '/usr/bin/chromium';

export const launchChromium = async (): Promise<Browser> => {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `no chromium at ${executablePath}: the console's browser test drives Debian's chromium. Install it with \`sudo apt-get install chromium\` ` +
        '(CI does, in infra/docker/install.sh), or point SHOAL_CHROMIUM at a chromium or chrome binary.',
    );
  }
  return puppeteer.launch({
    executablePath,
    headless: true,
    // Driven over a pipe: the browser opens no debugging port.
    pipe: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ],
  });
};
