// The README's statements that go stale when the page or the defaults change,
// checked against what they describe (as tests/layers checks the include
// rules): the banner's actions and their words, the default AI backend, what
// the page says with the AI off, and no test counts or suite counts at all.
// Pure file reads under node's test runner: no browser needed.
//
//   node --test readme.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md').replace(/\s+/g, ' ');
const index = read('www/index.html');
const active = read('www/js/active.js');

const kNumbers = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

test('the banner has as many actions as the README says, each named as the page names it', () => {
  const actions = /<div class="actions drift-actions">([\s\S]*?)<\/div>/.exec(index);
  assert.ok(actions, 'the banner\'s actions in www/index.html');
  const buttons = [...actions[1].matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);
  const said = /The banner has (\w+) actions/.exec(readme);
  assert.ok(said, 'README: "The banner has N actions"');
  assert.equal(kNumbers[said[1]], buttons.length, `README says ${said[1]}; the page has ${buttons}`);
  for (const label of buttons.filter((text) => text !== '')) {
    assert.ok(readme.includes(`**${label}**`), `README names the button **${label}**`);
  }
  // The words active.js puts on the buttons: the page's own "This page is on task",
  // the site's "All of <site> this session".
  assert.match(active, /'This page is on task'/);
  assert.ok(readme.includes('**This page is on task**'));
  assert.match(active, /`All of \$\{siteWords\} this session`/);
  assert.ok(readme.includes('**All of <site> this session**'));
});

test('the default AI backend the README names is the example configuration\'s', () => {
  const example = /^ai\.backend = (\S+)$/m.exec(read('antidrift.properties.example'));
  assert.ok(example, 'ai.backend in antidrift.properties.example');
  const claims = [...readme.matchAll(/default AI backend is `([^`]+)`|`([^`]+)` \(the default\)/g)];
  assert.ok(claims.length >= 2, 'README names the default backend');
  for (const claim of claims) assert.equal(claim[1] || claim[2], example[1], claim[0]);
});

test('what the README quotes the page saying with the AI off is what the page says', () => {
  const quotes = [...readme.matchAll(/says "(AI coach off[^"]*)"/g)].map((m) => m[1]);
  assert.ok(quotes.length >= 2, 'README quotes the coach-off sentence');
  for (const quote of quotes) assert.ok(index.includes(quote), `www/index.html says "${quote}"`);
  assert.ok(!readme.includes('coach unavailable'));
});

test('the README carries no test counts and no count of browser suites', () => {
  assert.doesNotMatch(readme, /\b\d[\d,]* tests\b/);
  assert.doesNotMatch(readme, /\b(one|two|three|four|five|six|seven|eight|nine|ten|\d+) browser suites\b/);
});
