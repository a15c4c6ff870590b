// Shared pieces of the browser tests: the real antidriftd as a child process,
// the real chromium (Debian's /usr/bin/chromium) driven by playwright-core.
//
// Environment:
//   ANTIDRIFT_BIN         path of the antidriftd binary (required)
//   ANTIDRIFT_PLUGIN_DIR  folder with antidrift-<name>.so (the coach test)
//   ANTIDRIFT_ARTIFACTS   where screenshots go (default: <tmpdir>/antidrift-ui-artifacts)
//   CHROMIUM              chromium binary (default /usr/bin/chromium)

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { chromium } from 'playwright-core';

const kListening = /antidriftd listening on (http:\/\/127\.0\.0\.1:\d+)/;
const kStartDeadlineMs = 20000;
const kStopDeadlineMs = 10000;

/** Folder for screenshots; created on first use. */
export function artifactsDir() {
  const dir = process.env.ANTIDRIFT_ARTIFACTS || path.join(os.tmpdir(), 'antidrift-ui-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A fresh private temporary folder. */
export function makeTempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts the real daemon on port 0 with its own store dir and the given
 * extra `-D key=value` settings; with `configFile`, also `--config FILE`
 * (and no `ai.backend` default, so the file chooses the backend). A
 * `store.dir` among the settings is used (and kept by stop()) instead of a
 * fresh one, so a test can restart a daemon on the same store, token and
 * `server.port`. Resolves once it printed its listening line; rejects if it
 * exits first or takes longer than 20 s.
 */
export async function startDaemon(extraSettings = {}, { configFile } = {}) {
  const bin = process.env.ANTIDRIFT_BIN;
  if (!bin) throw new Error('ANTIDRIFT_BIN is not set (path of the antidriftd binary)');
  if (!fs.existsSync(bin)) throw new Error(`ANTIDRIFT_BIN=${bin} does not exist`);
  const ownStore = !extraSettings['store.dir'];
  const storeDir = ownStore ? makeTempDir('antidrift-ui-store-') : extraSettings['store.dir'];
  const settings = {
    'server.port': '0',
    'store.dir': storeDir,
    'evidence.x11': 'false',
    ...(configFile ? {} : { 'ai.backend': 'none' }),
    ...extraSettings,
  };
  const args = configFile ? ['--config', configFile] : [];
  for (const [key, value] of Object.entries(settings)) args.push('-D', `${key}=${value}`);

  // The daemon must not pick up the developer's own config or AI backend.
  const env = { ...process.env, XDG_CONFIG_HOME: makeTempDir('antidrift-ui-config-') };
  delete env.ANTIDRIFT_AI_BACKEND;
  delete env.DISPLAY;

  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const baseUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`antidriftd did not print its listening line within ${kStartDeadlineMs} ms:\n${output}`));
    }, kStartDeadlineMs);
    const onData = (chunk) => {
      output += chunk.toString();
      const match = kListening.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => { output += chunk.toString(); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`antidriftd exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

  const token = fs.readFileSync(path.join(storeDir, 'token'), 'utf8').trim();

  /** POSTs JSON with the token, as the page does. Returns {status, body}. */
  async function post(route, body = {}) {
    const response = await fetch(baseUrl + route, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-AntiDrift-Token': token },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try { json = JSON.parse(text); } catch { json = null; }
    return { status: response.status, body: json, text };
  }

  async function getJson(route) {
    const response = await fetch(baseUrl + route);
    return { status: response.status, body: await response.json() };
  }

  /**
   * Brings the daemon back to locked through the API, whatever state an
   * earlier (possibly failed) test left it in.
   */
  async function resetToLocked() {
    const steps = { planning: ['/planning/cancel'], active: ['/abandon', '/end'], review: ['/end'] };
    const { body } = await getJson('/state');
    for (const route of steps[body.runtime] || []) {
      const answer = await post(route);
      if (answer.status !== 200) throw new Error(`reset: POST ${route} → ${answer.status} ${answer.text}`);
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  async function stop() {
    let timer = null;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      timer = setTimeout(() => child.kill('SIGKILL'), kStopDeadlineMs);
    }
    const result = await exited;
    if (timer) clearTimeout(timer);
    if (ownStore) fs.rmSync(storeDir, { recursive: true, force: true });
    fs.rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
    return result;
  }

  return { baseUrl, storeDir, token, pid: child.pid, post, getJson, resetToLocked, stop, output: () => output };
}

/** The real chromium, headless, with a fresh profile. Returns {context, close()}. */
export async function launchBrowser() {
  const userDataDir = makeTempDir('antidrift-ui-chromium-');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 900, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  async function close() {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  return { context, close };
}

/**
 * Opens a page and records uncaught page errors in `page.pageErrors`, console
 * errors (a failed load such as a 404, a CSP violation) in
 * `page.consoleErrors`, and the path of every request in
 * `page.requestedPaths`, so a test can assert the UI threw, broke and asked
 * for nothing unexpected.
 */
export async function openPage(context) {
  const page = await context.newPage();
  page.pageErrors = [];
  page.consoleErrors = [];
  page.requestedPaths = [];
  page.on('pageerror', (error) => page.pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') page.consoleErrors.push(message.text());
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'http:') page.requestedPaths.push(url.pathname);
  });
  return page;
}

/**
 * Text in the mounted view that sticks out of its card (or out of the page)
 * sideways: a list of "<element id or class>: <start of the text>". Text is
 * measured with a Range, since a long unbroken word overflows its element's
 * box without widening the box. Text inside inputs and inside an element that
 * deliberately clips with an ellipsis is skipped.
 */
export async function horizontalOverflow(page) {
  return page.evaluate(() => {
    const problems = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      problems.push(`page: scrollWidth ${root.scrollWidth} > clientWidth ${root.clientWidth}`);
    }
    const walker = document.createTreeWalker(document.getElementById('view'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || node.textContent.trim() === '' || parent.closest('[hidden]')) continue;
      if (getComputedStyle(parent).textOverflow === 'ellipsis') continue;
      const card = parent.closest('.card');
      if (!card) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const text = range.getBoundingClientRect();
      const box = card.getBoundingClientRect();
      if (text.width > 0 && (text.right > box.right + 0.5 || text.left < box.left - 0.5)) {
        const name = parent.id ? `#${parent.id}` : `.${parent.className}`;
        problems.push(`${name}: ${node.textContent.trim().slice(0, 40)}`);
      }
    }
    return problems;
  });
}

/** Waits until the mounted view is `runtime`. */
export async function waitForView(page, runtime) {
  await page.waitForSelector(`#view[data-view="${runtime}"]`);
}

/** The State version the page last rendered (0 before the first). */
export async function renderedVersion(page) {
  return page.evaluate(() => Number(document.documentElement.dataset.stateVersion || 0));
}

/** Waits until the page rendered a State newer than `version`. */
export async function waitForVersionAbove(page, version) {
  await page.waitForFunction(
    (seen) => Number(document.documentElement.dataset.stateVersion || 0) > seen, version);
}

/** Saves a full-page screenshot `<artifacts>/<name>.png` and returns its path. */
export async function screenshot(page, name) {
  const file = path.join(artifactsDir(), `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** "m:ss" or "h:mm:ss" → seconds. */
export function clockToSeconds(text) {
  const parts = text.trim().split(':').map(Number);
  if (parts.some((part) => !Number.isInteger(part))) throw new Error(`not a clock: "${text}"`);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

/**
 * Registers the hooks of a describe block that runs its tests against one
 * daemon and one browser: before all, a private work folder, the daemon
 * started with what `daemonOptions(workDir)` returns ({settings, options} for
 * startDaemon, possibly async) and the browser; before each test, the daemon
 * reset to locked; after each, every page closed; after all, browser and
 * daemon stopped, the work folder removed and the screenshots listed.
 * Returns the suite {daemon, browser, workDir, screenshots}, filled in by the
 * before hook.
 */
export function useDaemonAndBrowser(workDirPrefix, daemonOptions) {
  const suite = { daemon: null, browser: null, workDir: null, screenshots: [] };

  before(async () => {
    suite.workDir = makeTempDir(workDirPrefix);
    const { settings = {}, options = {} } = await daemonOptions(suite.workDir);
    suite.daemon = await startDaemon(settings, options);
    suite.browser = await launchBrowser();
  });

  beforeEach(async () => {
    await suite.daemon.resetToLocked();
  });

  afterEach(async () => {
    for (const page of suite.browser.context.pages()) await page.close();
  });

  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.daemon) await suite.daemon.stop();
    if (suite.workDir) fs.rmSync(suite.workDir, { recursive: true, force: true });
    if (suite.screenshots.length) console.log(`screenshots:\n  ${suite.screenshots.join('\n  ')}`);
  });

  return suite;
}

/** Opens the UI of the suite's daemon in a new page and waits for the locked view. */
export async function openLockedPage(suite) {
  const page = await openPage(suite.browser.context);
  await page.goto(suite.daemon.baseUrl + '/');
  await waitForView(page, 'locked');
  return page;
}

/** Opens the UI in a new page, clicks Plan and waits for the planning view. */
export async function openPlanningPage(suite) {
  const page = await openLockedPage(suite);
  await page.click('#plan-button');
  await waitForView(page, 'planning');
  return page;
}

/** Cancels planning, waits for the locked view, asserts the page threw nothing and closes it. */
export async function cancelPlanningAndClose(page) {
  await page.click('#cancel');
  await waitForView(page, 'locked');
  assert.deepEqual(page.pageErrors, []);
  await page.close();
}
