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
import { describe, test } from 'node:test';

import { openLockedPage, useDaemonAndBrowser, waitForView } from './harness.mjs';

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
      /token was changed \(antidrift token --rotate\): reload this page/);
    assert.match(await page.title(), /^Reload this page · AntiDrift /);

    // A button still sends the old token: refused, with the reason shown.
    await page.click('#plan-button');
    await page.waitForFunction(() => /reload the page/.test(document.body.textContent));
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
