// Browser test of `antidrift token --rotate` (issue 19 item 7, docs/SECURITY.md
// L10): an open page learns from its event stream that its token is stale and
// says to reload; its buttons are refused with the daemon's reason; a reload
// brings the new token and the page works again.
//
//   ANTIDRIFT_BIN=/path/to/build/antidriftd node --test ui-token.test.mjs
//
// No fixed sleeps: every wait is on a condition with Playwright's deadline.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  launchBrowser, makeTempDir, openLockedPage, openPage, startDaemon, useDaemonAndBrowser, waitForView,
} from './harness.mjs';

describe('AntiDrift page and a rotated token', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-token-', () => ({ settings: { 'ai.backend': 'none' } }));

  test('the open page says to reload, refuses nothing silently, and works after a reload', async () => {
    const page = await openLockedPage(suite);
    await page.waitForFunction(() => document.documentElement.dataset.connection === 'open');

    // What `antidrift token --rotate` asks of the running daemon.
    const response = await fetch(suite.daemon.baseUrl + '/token/rotate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-AntiDrift-Token': suite.daemon.token },
      body: '{}',
    });
    assert.equal(response.status, 200);
    const tokenFile = path.join(suite.daemon.storeDir, 'token');
    assert.deepEqual(await response.json(), { ok: true, token_file: tokenFile });
    const fresh = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.notEqual(fresh, suite.daemon.token);

    // The stream's notice: the connection line says what to do, for good.
    await page.waitForFunction(() => document.documentElement.dataset.connection === 'rotated');
    assert.match(await page.textContent('#connection'),
      /key changed \(antidrift token --rotate\): reload this page/);
    assert.match(await page.title(), /^Reload this page · AntiDrift /);

    // A button still sends the old token: refused, with the reason shown.
    await page.click('#plan-button');
    await page.waitForFunction(() => /AntiDrift’s key changed; reload this page\./.test(
      document.querySelector('#view .error').textContent));
    assert.doesNotMatch(await page.textContent('#view'), /X-AntiDrift-Token|store\.dir/);
    assert.equal(await page.getAttribute('#view', 'data-view'), 'locked');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.connection), 'rotated');

    // A reload gets the new token: the page works again.
    await page.reload();
    await waitForView(page, 'locked');
    await page.waitForFunction(() => document.documentElement.dataset.connection === 'open');
    const served = await page.getAttribute('meta[name="antidrift-token"]', 'content');
    assert.equal(served, fresh);
    await page.click('#plan-button');
    await waitForView(page, 'planning');
    await page.click('#cancel');
    await waitForView(page, 'locked');
    assert.deepEqual(page.pageErrors, []);
  });
});

describe('AntiDrift page after a rotation and a restart', () => {
  let workDir = '';
  let storeDir = '';
  let daemon = null;
  let browser = null;

  before(async () => {
    workDir = makeTempDir('antidrift-ui-tag-');
    storeDir = path.join(workDir, 'store');
    daemon = await startDaemon({ 'store.dir': storeDir });
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (daemon) await daemon.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  test('an open page reloads itself to take the tag the restarted daemon serves', async () => {
    const port = new URL(daemon.baseUrl).port;
    const page = await openPage(browser.context);
    await page.goto(daemon.baseUrl + '/');
    await waitForView(page, 'locked');
    const tagOf = () => page.getAttribute('meta[name="antidrift-page-tag"]', 'content');
    const earlierTag = await tagOf();
    assert.match(earlierTag, /^[0-9a-f]{8}$/);

    // Rotate, reload (the new token, the tag of the token the daemon started with), restart.
    assert.equal((await daemon.post('/token/rotate')).status, 200);
    await page.reload();
    await waitForView(page, 'locked');
    assert.equal(await tagOf(), earlierTag);
    await daemon.stop();
    const reloaded = page.waitForEvent('load', { timeout: 20000 });
    daemon = await startDaemon({ 'store.dir': storeDir, 'server.port': port });
    const { body } = await daemon.getJson('/state');
    assert.match(body.page_tag, /^[0-9a-f]{8}$/);
    assert.notEqual(body.page_tag, earlierTag);

    // The page is told the new tag on its stream and reloads by itself.
    await reloaded;
    await waitForView(page, 'locked');
    assert.equal(await tagOf(), body.page_tag);
    await page.waitForFunction((tag) => document.title.endsWith(`AntiDrift ${tag}`), body.page_tag);
    await page.waitForFunction(() => document.documentElement.dataset.connection === 'open');
    assert.deepEqual(page.pageErrors, []);
  });
});

describe('AntiDrift page in a session when the token is rotated', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-token-active-',
    () => ({ settings: { 'ai.backend': 'none', 'notify.desktop': 'true' } }));

  test('says in a person\'s words what to do, and still knows the notifications', async () => {
    const { daemon } = suite;
    assert.equal((await daemon.post('/planning')).status, 200);
    const started = await daemon.post('/commitment', {
      next_action: 'Outline the talk', success_condition: 'Five headings', timebox_minutes: 25,
    });
    assert.equal(started.status, 200, started.text);
    const page = await openPage(suite.browser.context);
    await page.goto(daemon.baseUrl + '/');
    await waitForView(page, 'active');
    const kNotifyOn = 'Desktop notifications on: drift, reminders and time up';
    await page.waitForFunction((text) => document.getElementById('notify-status').textContent === text,
      kNotifyOn);

    assert.equal((await daemon.post('/token/rotate')).status, 200);
    await page.waitForFunction(() => document.documentElement.dataset.connection === 'rotated');
    // The daemon runs and its stream still brings States: nothing is "unknown".
    assert.equal(await page.textContent('#notify-status'), kNotifyOn);
    await page.click('#complete');
    await page.waitForSelector('#view .error:not([hidden])');
    assert.equal(await page.textContent('#view .error'), 'AntiDrift’s key changed; reload this page.');
    await waitForView(page, 'active');
    // Leave the daemon as the next suite expects: the file's token ends the session.
    const fresh = fs.readFileSync(path.join(daemon.storeDir, 'token'), 'utf8').trim();
    for (const route of ['/abandon', '/end']) {
      const response = await fetch(daemon.baseUrl + route, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-AntiDrift-Token': fresh },
        body: '{}',
      });
      assert.equal(response.status, 200);
    }
    assert.deepEqual(page.pageErrors, []);
  });
});
