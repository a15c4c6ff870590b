// Browser test of issue 17 items 4 and 5 in the page: "This is on task" with a
// choice (this page, or all of the site this session), what was marked
// listed beside "On task in:" with an Undo for each, and the review and the
// history saying where the drift went. The real antidriftd with the fake AI
// plugin, window evidence posted with POST /evidence/window, the real chromium.
//
//   ANTIDRIFT_BIN=build/antidriftd ANTIDRIFT_PLUGIN_DIR=build/plugins \
//     node --test ui-marks.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import {
  horizontalOverflow, openPlanningPage, screenshot, useDaemonAndBrowser, waitForView,
} from './harness.mjs';

// Neither is a known distraction (data/distractions.txt): the fake judge is asked.
const kCatPage = 'Cat videos compilation - Kittens Daily — Mozilla Firefox';
const kDogPage = 'Dog videos - Puppy Tube — Mozilla Firefox';
const kOtherDogPage = 'More dogs - Puppy Tube — Mozilla Firefox';

function writeResponses(dir) {
  const file = path.join(dir, 'responses.json');
  const responses = [
    { role: 'judge', match: 'Cat videos', text: '{"on_task": false, "reason": "Cats are not the report."}' },
    { role: 'judge', match: 'Puppy Tube', text: '{"on_task": false, "reason": "Dogs are not the report."}' },
    { role: 'judge', text: '{"on_task": true, "reason": "Looks like the report."}' },
    { role: 'reviewer', text: '{"recap": "Two detours.", "carry_forward": "Close the video tabs first."}' },
    { role: 'coach', text: '{"next_action": "x", "success_condition": "y", "timebox_minutes": 25}' },
  ];
  fs.writeFileSync(file, JSON.stringify({ responses }, null, 2));
  return file;
}

describe('AntiDrift UI: marking pages and sites on task, and where the drift went', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-marks-', (workDir) => {
    const pluginDir = process.env.ANTIDRIFT_PLUGIN_DIR;
    if (!pluginDir) throw new Error('ANTIDRIFT_PLUGIN_DIR is not set (folder with antidrift-fake.so)');
    const configFile = path.join(workDir, 'antidrift.properties');
    fs.writeFileSync(configFile, [
      '# written by ui-marks.test.mjs',
      'ai.backend = fake',
      `ai.fake.responses = ${writeResponses(workDir)}`,
      `ai.plugin_dir = ${pluginDir}`,
      'drift.judge_debounce_s = 0',
      'drift.memory = false',
      '',
    ].join('\n'));
    return { options: { configFile } };
  });
  const { screenshots } = suite;

  const observe = async (app, title) => {
    const answer = await suite.daemon.post('/evidence/window', { app, title });
    assert.equal(answer.status, 202, answer.text);
  };
  const state = async () => (await suite.daemon.getJson('/state')).body;
  const markTexts = (page) => page.$$eval('#active-marks-list li .mark-text',
    (items) => items.map((item) => item.textContent));

  test('mark a page, mark a whole site, undo one, and the review says where the drift went', async () => {
    const page = await openPlanningPage(suite);
    await page.fill('#next-action', 'Draft the quarterly report summary');
    await page.fill('#success-condition', 'Three paragraphs written');
    await page.fill('#allowed-apps', 'code');
    await page.click('#start');
    await waitForView(page, 'active');
    assert.equal(await page.isHidden('#active-marks'), true, 'nothing marked yet');

    // A judged drift on a page whose title names a site: the choice is offered.
    await observe('firefox', kCatPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    assert.equal(await page.textContent('#drift-ontask'), 'This page is on task');
    // The site as its title writes it, not the lower-case key (issue 17, re-walk D).
    assert.equal(await page.textContent('#drift-ontask-site'), 'All of Kittens Daily this session');
    screenshots.push(await screenshot(page, 'ui-marks-choice'));

    // This page: listed beside "On task in:", which still names only the apps.
    await page.click('#drift-ontask');
    await page.waitForSelector('#drift-banner', { state: 'hidden' });
    await page.waitForSelector('#active-marks:not([hidden])');
    assert.equal(await page.textContent('#active-allowed'), 'On task in: code');
    assert.deepEqual(await markTexts(page),
      ['this page: “cat videos compilation - kittens daily” (firefox)']);
    assert.equal((await state()).drift.reason, 'you said this firefox page is on task');
    // drift.memory is off here: nothing is remembered, so nothing says so.
    assert.equal(await page.isHidden('#remembered'), true);

    // All of a site this session: every page of it, without asking the judge again.
    await observe('firefox', kDogPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    assert.equal(await page.textContent('#drift-ontask-site'), 'All of Puppy Tube this session');
    const siteMark = page.waitForResponse((response) => response.url().endsWith('/drift/ontask'));
    await page.click('#drift-ontask-site');
    assert.equal((await siteMark).status(), 200);
    await page.waitForSelector('#drift-banner', { state: 'hidden' });
    await page.waitForFunction(() => document.querySelectorAll('#active-marks-list li').length === 2);
    assert.deepEqual(await markTexts(page), [
      'this page: “cat videos compilation - kittens daily” (firefox)',
      'all of puppy tube this session (firefox)',
    ]);
    const judgedBefore = (await state()).stats.ai_calls.judge;
    await observe('firefox', kOtherDogPage);
    await page.waitForSelector('#drift-status[data-status="ontask"]');
    assert.equal((await state()).drift.reason, 'you marked all of puppy tube on task this session');
    assert.equal((await state()).stats.ai_calls.judge, judgedBefore);
    assert.deepEqual(await horizontalOverflow(page), []);
    screenshots.push(await screenshot(page, 'ui-marks-listed'));

    // Undo the page: it leaves the list and is judged again when seen.
    const undo = page.waitForResponse((response) => response.url().endsWith('/drift/ontask/undo'));
    await page.click('#active-marks-list button[data-kind="title"]');
    assert.equal((await undo).status(), 200);
    await page.waitForFunction(() => document.querySelectorAll('#active-marks-list li').length === 1);
    assert.deepEqual(await markTexts(page), ['all of puppy tube this session (firefox)']);
    const afterUndo = (await state()).commitment;
    assert.deepEqual(afterUndo.allowed_titles, []);
    assert.deepEqual(afterUndo.allowed_sites, [{ app: 'firefox', site: 'puppy tube', domain: false }]);
    await observe('firefox', kCatPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    screenshots.push(await screenshot(page, 'ui-marks-undone'));

    // The review: where the drift went, per site, with visits.
    await observe('code', 'report.md - Visual Studio Code');
    await page.waitForSelector('#drift-status[data-status="ontask"]');
    await page.click('#complete');
    await waitForView(page, 'review');
    await page.waitForSelector('#focus-section:not([hidden])');
    const sites = await page.$$eval('#drift-sites li', (items) => items.map((item) => item.textContent));
    const cats = sites.find((line) => line.startsWith('kittens daily '));
    assert.ok(cats, JSON.stringify(sites));
    assert.match(cats, /^kittens daily \d+ s over 2 visits$/);  // before the mark and after the undo
    assert.ok(sites.some((line) => /^puppy tube \d+ s over 1 visit$/.test(line)), JSON.stringify(sites));
    assert.match(await page.textContent('#longest-stretch'), /^Longest on-task stretch: \d+ s$/);
    assert.deepEqual(await horizontalOverflow(page), []);
    screenshots.push(await screenshot(page, 'ui-marks-review'));

    // The history says it too, with the week's trend beside the charts.
    await page.click('#end');
    await waitForView(page, 'locked');
    await page.waitForSelector('#history-list li.session .session-drift');
    assert.match(await page.textContent('#history-list li.session .session-drift'),
      /^Drift went to: .*kittens daily \d+ s over 2 visits.* · Longest on-task stretch: \d+ s$/);
    await page.waitForSelector('#history-days:not([hidden])');
    assert.equal(await page.textContent('#week-kept-this'), '1 of 1');
    assert.equal(await page.textContent('#week-kept-last'), '0 of 0');
    // The share is drawn as the daemon computed it (null — a sub-second session — shows "—").
    const week = (await suite.daemon.getJson('/history?n=5')).body.week;
    assert.equal(week.this_week.sessions, 1);
    const share = week.this_week.drift_share;
    assert.equal(await page.textContent('#week-drift-this'),
      share === null ? '—' : `${Math.round(share * 100)}%`);
    assert.equal(await page.textContent('#week-drift-last'), '—');
    assert.deepEqual(await horizontalOverflow(page), []);
    screenshots.push(await screenshot(page, 'ui-marks-history'));
    assert.deepEqual(page.pageErrors, []);
  });
});

describe('AntiDrift UI: a mark is remembered across sessions, said so, and can be forgotten', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-remembered-', (workDir) => {
    const pluginDir = process.env.ANTIDRIFT_PLUGIN_DIR;
    if (!pluginDir) throw new Error('ANTIDRIFT_PLUGIN_DIR is not set (folder with antidrift-fake.so)');
    const configFile = path.join(workDir, 'antidrift.properties');
    fs.writeFileSync(configFile, [
      '# written by ui-marks.test.mjs',
      'ai.backend = fake',
      `ai.fake.responses = ${writeResponses(workDir)}`,
      `ai.plugin_dir = ${pluginDir}`,
      'drift.judge_debounce_s = 0',
      '',
    ].join('\n'));
    return { options: { configFile } };
  });
  const { screenshots } = suite;

  const observe = async (app, title) => {
    const answer = await suite.daemon.post('/evidence/window', { app, title });
    assert.equal(answer.status, 202, answer.text);
  };
  const remembered = async () => (await suite.daemon.getJson('/verdicts')).body.verdicts
    .filter((verdict) => verdict.source === 'you');
  const startSession = async (page, nextAction) => {
    await page.click('#plan-button');
    await waitForView(page, 'planning');
    await page.fill('#next-action', nextAction);
    await page.fill('#success-condition', 'Three paragraphs written');
    await page.fill('#allowed-apps', 'code');
    await page.click('#start');
    await waitForView(page, 'active');
  };
  const endSession = async (page) => {
    await page.click('#complete');
    await waitForView(page, 'review');
    await page.click('#end');
    await waitForView(page, 'locked');
  };
  const kRememberedText = 'This page is on task this session, and is remembered for later sessions '
    + 'whose work shares words with this one.';

  test('This page is on task says it is remembered, with Forget; a later session offers Forget too', async () => {
    const page = await openPlanningPage(suite);
    await page.fill('#next-action', 'Draft the quarterly report summary');
    await page.fill('#success-condition', 'Three paragraphs written');
    await page.fill('#allowed-apps', 'code');
    await page.click('#start');
    await waitForView(page, 'active');
    assert.equal(await page.isHidden('#remembered'), true);

    // Marked on task: the page says it is remembered beyond this session.
    await observe('firefox', kCatPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    await page.click('#drift-ontask');
    await page.waitForSelector('#remembered:not([hidden])');
    assert.equal(await page.textContent('#remembered-text'), kRememberedText);
    assert.equal(await page.isVisible('#remembered-forget'), true);
    assert.equal((await remembered()).length, 1);
    screenshots.push(await screenshot(page, 'ui-remembered-confirmed'));

    // Forget: gone from the memory, still on task this session.
    const forgot = page.waitForResponse((response) => response.url().includes('/verdicts?key='));
    await page.click('#remembered-forget');
    assert.equal((await forgot).status(), 200);
    await page.waitForFunction(() => document.getElementById('remembered-text').textContent
      === 'Forgotten: it counts for this session only.');
    assert.equal(await page.isHidden('#remembered-forget'), true);
    assert.deepEqual(await remembered(), []);
    assert.equal((await suite.daemon.getJson('/state')).body.drift.status, 'ontask');

    // Back to task is remembered too, and said so.
    await observe('firefox', kDogPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    await page.click('#drift-refocus');
    await page.waitForFunction(() => /is drift this session, and is remembered/
      .test(document.getElementById('remembered-text').textContent));
    assert.equal(await page.isVisible('#remembered-forget'), true);

    // Undone and marked again, then a later session whose work shares a word:
    // the remembered verdict decides, and the Focus line's reason comes with Forget.
    await page.click('#active-marks-list button[data-kind="title"]');
    await page.waitForSelector('#active-marks', { state: 'hidden' });
    await observe('firefox', kCatPage);
    await page.waitForSelector('#drift-banner:not([hidden])');
    await page.click('#drift-ontask');
    await page.waitForFunction((text) => document.getElementById('remembered-text').textContent === text,
      kRememberedText);
    await observe('code', 'report.md - Visual Studio Code');  // the next session starts here
    // Another window in front: the confirmation goes, "This page" would name it (re-walk).
    await page.waitForSelector('#remembered', { state: 'hidden' });
    await endSession(page);
    await startSession(page, 'Review the quarterly budget');
    assert.equal(await page.isHidden('#remembered'), true, 'a new session starts without a confirmation');
    await observe('firefox', kCatPage);
    await page.waitForFunction(() => /remembered: you said/
      .test(document.getElementById('drift-status').textContent));
    await page.waitForSelector('#remembered:not([hidden])');
    assert.equal(await page.textContent('#remembered-text'),
      'This verdict is remembered from an earlier session whose work shares words with this one.');
    const key = (await suite.daemon.getJson('/state')).body.drift.memory_key;
    assert.equal(key, 'firefox\ncat videos compilation - kittens daily');
    screenshots.push(await screenshot(page, 'ui-remembered-later-session'));
    await page.click('#remembered-forget');
    await page.waitForFunction(() => document.getElementById('remembered-text').textContent
      === 'Forgotten: later sessions will not reuse this verdict.');
    assert.equal((await remembered()).some((verdict) => verdict.key === key), false);
    assert.deepEqual(page.pageErrors, []);
  });
});
