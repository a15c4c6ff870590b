// Browser test of the recap (DESIGN §7, seed 004) with the real fake plugin:
// the real antidriftd with ai.backend=fake and a canned reviewer answer, the
// real chromium.
//
// NEEDS: the Reviewer role (seed 004). Until it lands this file is not
// registered with ctest; it must FAIL (not skip) when the reviewer is missing.
//
//   ANTIDRIFT_BIN=build/antidriftd ANTIDRIFT_PLUGIN_DIR=build/plugins \
//     node --test ui-recap.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';

import { launchBrowser, makeTempDir, openPage, screenshot, startDaemon, waitForView } from './harness.mjs';

const kRecap = 'You finished the draft inside the timebox.';
const kCarryForward = 'Start with the hardest paragraph next time.';

function writeResponses(dir) {
  const file = path.join(dir, 'responses.json');
  const responses = [
    // Slow enough that the pending line is on screen for a moment.
    { role: 'reviewer', text: JSON.stringify({ recap: kRecap, carry_forward: kCarryForward }), delay_ms: 700 },
    { role: '*', fail: 'fake: no answer for this role in the recap test' },
  ];
  fs.writeFileSync(file, JSON.stringify({ responses }, null, 2));
  return file;
}

describe('AntiDrift UI recap with the fake AI backend', () => {
  let daemon;
  let browser;
  let workDir;
  const screenshots = [];

  before(async () => {
    const pluginDir = process.env.ANTIDRIFT_PLUGIN_DIR;
    if (!pluginDir) throw new Error('ANTIDRIFT_PLUGIN_DIR is not set (folder with antidrift-fake.so)');
    workDir = makeTempDir('antidrift-ui-recap-');
    daemon = await startDaemon({
      'ai.backend': 'fake',
      'ai.fake.responses': writeResponses(workDir),
      'ai.plugin_dir': pluginDir,
    });
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    await daemon.resetToLocked();
  });

  afterEach(async () => {
    for (const page of browser.context.pages()) await page.close();
  });

  after(async () => {
    if (browser) await browser.close();
    if (daemon) await daemon.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    if (screenshots.length) console.log(`screenshots:\n  ${screenshots.join('\n  ')}`);
  });

  test('the recap appears in review without holding up End', async () => {
    const page = await openPage(browser.context);
    await page.goto(daemon.baseUrl + '/');
    await waitForView(page, 'locked');
    await page.click('#plan-button');
    await waitForView(page, 'planning');
    await page.fill('#next-action', 'Write the release notes');
    await page.fill('#success-condition', 'Notes merged');
    await page.click('#start');
    await waitForView(page, 'active');
    await page.click('#complete');
    await waitForView(page, 'review');
    const reflection = (await daemon.getJson('/state')).body.reflection;
    assert.ok(reflection && ['pending', 'ready'].includes(reflection.status),
      `the reviewer runs on entering review (reflection ${JSON.stringify(reflection)})`);
    await page.waitForSelector('#recap[data-status="pending"]:not([hidden]), #recap[data-status="ready"]:not([hidden])');
    assert.equal(await page.isDisabled('#end'), false, 'End never waits for the recap');
    await page.waitForSelector('#recap[data-status="ready"]:not([hidden])');
    assert.equal(await page.textContent('#recap-text'), kRecap);
    assert.equal(await page.textContent('#recap-carry .carry-text'), kCarryForward);
    screenshots.push(await screenshot(page, 'ui-review-recap'));

    await page.click('#end');
    await waitForView(page, 'locked');
    await page.waitForSelector('#locked-carry:not([hidden])');
    assert.equal(await page.textContent('#locked-carry .carry-text'), kCarryForward);
    await page.click('#plan-button');
    await waitForView(page, 'planning');
    assert.equal(await page.textContent('#planning-carry .carry-text'), kCarryForward);
    await page.click('#cancel');
    await waitForView(page, 'locked');
    assert.deepEqual(page.pageErrors, []);
    await page.close();
  });
});
