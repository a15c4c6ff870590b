/*
 * The review view (DESIGN §11): outcome, time per app, the numbers, the
 * recap (DESIGN §7), End.
 */

import { byId, setHidden, setText, updateCarry } from './dom.js';
import { formatClock, kOutcomeWords } from './format.js';
import { post } from './net.js';

/** Key of the rendered bucket chart, so it is rebuilt only when it changes. */
let renderedBucketsKey = '';

/** Wires the freshly cloned review template. */
export function mount() {
  renderedBucketsKey = '';
  byId('end').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/end', {});
    if (button.isConnected) button.disabled = false;
  });
  byId('end').focus();
}

/** Partial update from a new State. */
export function update(state) {
  const outcome = String(state.outcome || '');
  const outcomeElement = byId('outcome');
  outcomeElement.dataset.outcome = outcome;
  setText('outcome', kOutcomeWords[outcome] || outcome || 'Session over');
  const commitment = state.commitment || {};
  setText('review-next-action', String(commitment.next_action || ''));

  const stats = state.stats || {};
  const buckets = Array.isArray(stats.buckets) ? stats.buckets : [];
  const key = JSON.stringify(buckets);
  if (key !== renderedBucketsKey) {
    renderedBucketsKey = key;
    const largest = buckets.reduce((max, bucket) => Math.max(max, Number(bucket.secs) || 0), 0);
    byId('buckets').replaceChildren(...buckets.map((bucket) => bucketItem(bucket, largest)));
  }
  setHidden(byId('buckets-empty'), buckets.length > 0);
  setText('switches', String(stats.switches || 0));
  setText('drift-episodes', String(stats.drift_episodes || 0));
  setText('drift-time', formatClock(stats.drift_secs || 0));
  setText('away-time', formatClock(stats.away_secs || 0));
  setText('corrections', String(stats.corrections || 0));
  updateAiCalls(stats.ai_calls);

  updateRecap(state.reflection);
}

/** "AI calls: judge 3 · nudge 1 · coach 2" (stats.ai_calls); hidden when none were made. */
function updateAiCalls(calls) {
  const parts = [];
  for (const role of ['judge', 'nudge', 'coach']) {
    const count = calls ? Number(calls[role]) || 0 : 0;
    if (count > 0) parts.push(`${role} ${count}`);
  }
  setText('ai-calls', parts.length > 0 ? `AI calls this session: ${parts.join(' · ')}` : '');
  setHidden(byId('ai-calls'), parts.length === 0);
}

function bucketItem(bucket, largest) {
  const secs = Number(bucket.secs) || 0;
  const item = document.createElement('li');
  item.className = 'bucket';
  item.dataset.app = String(bucket.app || '');
  const app = document.createElement('span');
  app.className = 'bucket-app';
  app.textContent = String(bucket.app || 'unknown');
  const track = document.createElement('span');
  track.className = 'bar-track';
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${largest > 0 ? Math.max(2, (secs / largest) * 100) : 2}%`;
  track.append(bar);
  const time = document.createElement('span');
  time.className = 'bucket-time muted small';
  time.textContent = formatClock(secs);
  item.append(app, track, time);
  return item;
}

/** Recap: pending → a quiet line; ready → recap + carry-forward; otherwise nothing. */
function updateRecap(reflection) {
  const status = reflection ? String(reflection.status || '') : '';
  const box = byId('recap');
  box.dataset.status = status;
  if (status === 'pending') {
    setText('recap-status', 'Writing a short recap…');
    setText('recap-text', '');
    updateCarry('recap-carry', '');
    setHidden(box, false);
  } else if (status === 'ready' && reflection.recap) {
    setText('recap-status', 'Recap');
    setText('recap-text', String(reflection.recap));
    updateCarry('recap-carry', reflection.carry_forward);
    setHidden(box, false);
  } else {
    setHidden(box, true);
  }
}
