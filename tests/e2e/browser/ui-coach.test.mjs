// Browser test of planning with AI (docs/DESIGN.md §6, seed 003): the coach, open
// tasks and the profile indicator, with the real fake plugin: the real
// antidriftd with ai.backend=fake, canned answers from a responses file,
// tasks.todo_txt and knowledge.profile files, the real chromium.
//
// NEEDS: POST /coach, the Coach role, tasks and profile (issue 3). It must
// FAIL (not skip) when a part is missing.
//
//   ANTIDRIFT_BIN=build/antidriftd ANTIDRIFT_PLUGIN_DIR=build/plugins \
//     node --test ui-coach.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import {
  cancelPlanningAndClose, horizontalOverflow, openLockedPage, openPlanningPage, renderedVersion,
  screenshot, useDaemonAndBrowser, waitForVersionAbove, waitForView,
} from './harness.mjs';

const kProposal = {
  next_action: 'Draft the executive summary of the quarterly report',
  success_condition: 'The summary has three paragraphs: revenue, risks, outlook',
  timebox_minutes: 30,
};

const kProfileText = '# Me\nSecret detail: I do my best work before 10.\n';

function writePlanningFiles(dir) {
  const todo = path.join(dir, 'todo.txt');
  fs.writeFileSync(todo, [
    'Call the dentist @phone',
    '(A) Finish the quarterly report +work due:2026-06-01',
    'x 2026-05-01 Done already',
    '',
  ].join('\n'));
  const profile = path.join(dir, 'profile.md');
  fs.writeFileSync(profile, kProfileText);
  return { todo, profile };
}

function writeResponses(dir) {
  const file = path.join(dir, 'responses.json');
  const responses = [
    // Slow enough that "thinking…" is on screen for a moment.
    { role: 'coach', match: 'quarterly report', text: JSON.stringify(kProposal), delay_ms: 700 },
    { role: 'coach', match: 'impossible plan', fail: 'fake: the coach is down' },
    // A proposal the daemon refuses (over the 12 h limit).
    { role: 'coach', match: 'marathon', text: JSON.stringify({ ...kProposal, timebox_minutes: 900 }) },
    { role: 'coach', match: 'unbroken', fail: `fake: ${'w'.repeat(300)}` },
    { role: 'reviewer', text: '{"recap": "Fine.", "carry_forward": "Keep going."}' },
    { role: 'judge', text: '{"on_task": true, "reason": "fine"}' },
    { role: 'nudge', text: '{"on_track": true}' },
  ];
  fs.writeFileSync(file, JSON.stringify({ responses }, null, 2));
  return file;
}

describe('AntiDrift UI with the fake AI backend', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-coach-', (workDir) => {
    const pluginDir = process.env.ANTIDRIFT_PLUGIN_DIR;
    if (!pluginDir) throw new Error('ANTIDRIFT_PLUGIN_DIR is not set (folder with antidrift-fake.so)');
    const planningFiles = writePlanningFiles(workDir);
    // The backend is chosen the way a person chooses it: in the config file.
    const configFile = path.join(workDir, 'antidrift.properties');
    fs.writeFileSync(configFile, [
      '# written by ui-coach.test.mjs',
      `tasks.todo_txt = ${planningFiles.todo}`,
      `knowledge.profile = ${planningFiles.profile}`,
      'ai.backend = fake',
      `ai.fake.responses = ${writeResponses(workDir)}`,
      `ai.plugin_dir = ${pluginDir}`,
      'drift.allowed_apps = Code, qterminal',
      '',
    ].join('\n'));
    return { options: { configFile } };
  });
  const { screenshots } = suite;

  test('Sharpen fills the inputs once and never overwrites later edits', async () => {
    const page = await openLockedPage(suite);
    const state = await suite.daemon.getJson('/state');
    assert.equal(state.body.ai.available, true, 'the fake plugin loaded');

    await page.click('#plan-button');
    await waitForView(page, 'planning');
    // AI on: the intent box is there, the "AI coach off" line is not.
    assert.equal(await page.isVisible('#intent-field'), true);
    assert.equal(await page.isHidden('#ai-off'), true);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'intent');
    assert.equal(await page.isDisabled('#sharpen'), true, 'nothing to sharpen yet');
    // The configured default allowed apps are shown, not hidden behind an empty field.
    assert.equal(await page.inputValue('#allowed-apps'), 'code, qterminal');
    await page.fill('#intent', 'finish the quarterly report');
    assert.equal(await page.isDisabled('#sharpen'), false);

    const answer = page.waitForResponse((response) => response.url().endsWith('/coach'));
    await page.click('#sharpen');
    assert.equal((await answer).status(), 200, 'POST /coach exists and accepts the intent');
    await page.waitForFunction(() => document.getElementById('coach-status').textContent === 'thinking…');
    await page.waitForSelector('#coach-status[data-status="ready"]');
    assert.equal(await page.inputValue('#next-action'), kProposal.next_action);
    assert.equal(await page.inputValue('#success-condition'), kProposal.success_condition);
    assert.equal(await page.inputValue('#minutes'), String(kProposal.timebox_minutes));
    assert.equal(await page.isDisabled('#start'), false);
    screenshots.push(await screenshot(page, 'ui-coach-ready'));

    // The person edits; later state events keep the edit (the proposal is
    // applied once, keyed by its content).
    await page.fill('#next-action', 'Draft only the revenue paragraph');
    await page.focus('#success-condition');
    const before = await renderedVersion(page);
    const observed = await suite.daemon.post('/evidence/window', { app: 'code', title: 'report.md - code' });
    assert.equal(observed.status, 202, observed.text);
    await waitForVersionAbove(page, before);
    assert.equal(await page.inputValue('#next-action'), 'Draft only the revenue paragraph');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'success-condition');

    // Sharpen again: the new answer is written in, even when it is the same proposal.
    const again = page.waitForResponse((response) => response.url().endsWith('/coach'));
    await page.click('#sharpen');
    assert.equal((await again).status(), 200);
    await page.waitForFunction((expected) => document.getElementById('next-action').value === expected,
      kProposal.next_action);

    await cancelPlanningAndClose(page);
  });

  test('a coach failure is a message, and manual planning still works', async () => {
    const page = await openPlanningPage(suite);

    await page.fill('#intent', 'an impossible plan');
    const answer = page.waitForResponse((response) => response.url().endsWith('/coach'));
    await page.click('#sharpen');
    assert.equal((await answer).status(), 200, 'POST /coach exists and accepts the intent');
    await page.waitForSelector('#coach-status[data-status="error"]');
    const coach = (await suite.daemon.getJson('/state')).body.coach;
    assert.equal(coach && coach.status, 'error', 'the daemon says the coach failed');
    // A friendly lead-in, then the daemon's own reason.
    assert.equal((await page.textContent('#coach-status')).trim(),
      `The coach could not help this time: ${coach.error}`);
    assert.equal(await page.inputValue('#next-action'), '', 'nothing was filled');
    screenshots.push(await screenshot(page, 'ui-coach-error'));

    // A proposal the daemon refuses is the same kind of message.
    const sharpenWith = async (intent) => {
      const before = await renderedVersion(page);
      await page.fill('#intent', intent);
      const reply = page.waitForResponse((response) => response.url().endsWith('/coach'));
      await page.click('#sharpen');
      assert.equal((await reply).status(), 200);
      await waitForVersionAbove(page, before);
      await page.waitForSelector('#coach-status[data-status="error"]');
      return (await suite.daemon.getJson('/state')).body.coach;
    };
    const refused = await sharpenWith('a marathon day');
    assert.equal(refused.status, 'error');
    assert.match(refused.error, /720/, refused.error);
    await page.waitForFunction((expected) => document.getElementById('coach-status').textContent === expected,
      `The coach could not help this time: ${refused.error}`);
    assert.equal(await page.inputValue('#next-action'), '', 'nothing was filled');
    // A long unbroken reason wraps inside the card.
    await sharpenWith('an unbroken reason');
    await page.waitForFunction(() => /w{100}/.test(document.getElementById('coach-status').textContent));
    assert.deepEqual(await horizontalOverflow(page), []);

    await page.fill('#next-action', 'Outline the plan by hand');
    await page.fill('#success-condition', 'Three bullet points written');
    await page.click('#start');
    await waitForView(page, 'active');
    await suite.daemon.post('/abandon');
    await waitForView(page, 'review');
    await suite.daemon.post('/end');
    await waitForView(page, 'locked');
    assert.deepEqual(page.pageErrors, []);
    await page.close();
  });

  test('open tasks fill the intent; the profile shows only its size', async () => {
    const page = await openPlanningPage(suite);

    // Priority A first, completed tasks left out.
    await page.waitForSelector('#tasks:not([hidden]) #tasks-list li');
    const tasks = await page.$$eval('#tasks-list .task-text', (spans) => spans.map((span) => span.textContent));
    assert.equal(tasks.length, 2, JSON.stringify(tasks));
    assert.match(tasks[0], /Finish the quarterly report/);
    assert.match(tasks[1], /Call the dentist/);
    assert.match(await page.textContent('#tasks-list li:first-child .priority'), /A/);
    assert.match(await page.textContent('#tasks-list li:first-child .due'), /2026-06-01/);

    await page.click('#tasks-list li:first-child .task');
    assert.equal(await page.inputValue('#intent'), tasks[0]);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'intent');
    assert.equal(await page.isDisabled('#sharpen'), false);

    await page.waitForSelector('#profile[data-status="ready"]:not([hidden])');
    assert.match(await page.textContent('#profile'), new RegExp(`${Buffer.byteLength(kProfileText)} bytes`));
    const html = await page.content();
    assert.ok(!html.includes('Secret detail'), 'the profile text is not on the page');
    const state = JSON.stringify((await suite.daemon.getJson('/state')).body);
    assert.ok(!state.includes('Secret detail'), 'nor in the State the browser receives');
    screenshots.push(await screenshot(page, 'ui-planning-tasks'));

    await cancelPlanningAndClose(page);
  });

  test('planning names the AI in use up front, before any Sharpen', async () => {
    const page = await openPlanningPage(suite);
    await page.waitForSelector('#ai-on:not([hidden])');
    assert.equal(await page.textContent('#ai-backend'), 'fake');
    assert.equal(await page.isHidden('#ai-off'), true);
    // Where the titles go (issue 18 item 3): the fake's plugin.json says "local".
    await page.waitForSelector('#ai-where:not([hidden])');
    assert.equal(await page.textContent('#ai-where'), 'Window titles stay on this machine.');
    // Chosen in the config file, not by auto: no "— auto".
    assert.equal(await page.textContent('#ai-found'), '');
    // The configured defaults fill the field, so there is nothing to warn about.
    assert.equal(await page.isHidden('#allowed-apps-empty'), true);
    await cancelPlanningAndClose(page);
  });
});

// Issue 17 item 4: a claude CLI that is not installed is named once —
// "claude: claude not found …" said it twice.
describe('AntiDrift UI with the claude backend and no claude CLI', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-noclaude-', (workDir) => {
    const pluginDir = process.env.ANTIDRIFT_PLUGIN_DIR;
    if (!pluginDir) throw new Error('ANTIDRIFT_PLUGIN_DIR is not set (folder with antidrift-claude.so)');
    const configFile = path.join(workDir, 'antidrift.properties');
    fs.writeFileSync(configFile, [
      '# written by ui-coach.test.mjs',
      'ai.backend = claude',
      `ai.plugin_dir = ${pluginDir}`,
      '',
    ].join('\n'));
    // A PATH without claude on it, as on a machine where it was never installed.
    const emptyBin = path.join(workDir, 'bin');
    fs.mkdirSync(emptyBin);
    return { options: { configFile, env: { PATH: emptyBin } } };
  });

  test('planning says why the AI is off without repeating the backend', async () => {
    const page = await openPlanningPage(suite);
    await page.waitForSelector('#ai-off:not([hidden])');
    const detail = (await page.textContent('#ai-detail')).trim();
    assert.match(detail, /^claude not found on PATH: /);
    assert.doesNotMatch(detail, /claude: claude/);
    await cancelPlanningAndClose(page);
  });
});
