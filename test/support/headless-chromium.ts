/**
 * Debian's Chromium, headless, for the browser tests: the flags this machine
 * needs (no sandbox as root; no background networking, whose connections the
 * closed network refuses) and a throw-away profile removed on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A running browser context and how to end it (the profile folder goes with it). */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile in the given locale (default zh-CN). */
export async function launchHeadlessChromium(locale = 'zh-CN'): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, locale });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
