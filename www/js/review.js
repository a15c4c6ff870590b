/*
 * The review view (docs/DESIGN.md §11, issue 7): outcome, the recap (docs/DESIGN.md §7),
 * "Was the success condition met?" with an optional note (POST /review),
 * the session's timeline strip, time per app split into on-task and
 * drifting time, the numbers, End. End never waits for the recap.
 */

import { byId, setHidden, setText, updateCarry } from './dom.js';
import { formatAiCost, formatClock, kOutcomeWords, siteDriftLine, stretchLine } from './format.js';
import { post } from './net.js';
import { latestState } from './store.js';
import { finiteOr } from './svg.js';
import { timelineFigure } from './timeline.js';

/** Key of the rendered bucket chart, so it is rebuilt only when it changes. */
let renderedBucketsKey = '';
/** Key of the rendered timeline, so it is rebuilt only when it changes. */
let renderedTimelineKey = '';
/** The POST /review on its way, so End goes after it; null when none. */
let savingReview = null;
/**
 * The note as the daemon last sent it. A new note from the daemon (saved by
 * `antidrift review … --note`, or another tab) replaces the field's text only
 * while the person has not typed anything else, so End never posts an empty
 * or stale note over it (issue 17 item 4, found by the walk).
 */
let daemonNote = '';

/** Wires the freshly cloned review template. */
export function mount(state) {
  renderedBucketsKey = '';
  renderedTimelineKey = '';
  renderedFocusKey = '';
  savingReview = null;
  // Filled once: later States never overwrite what the person types.
  const review = reviewOf(state);
  daemonNote = review ? review.note : '';
  byId('review-note').value = daemonNote;
  for (const button of byId('success-question').querySelectorAll('.answer')) {
    button.addEventListener('click', () => saveReview(button.dataset.success));
  }
  const note = byId('review-note');
  note.addEventListener('input', () => updateSaved(reviewOf(latestState())));
  note.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const answered = reviewOf(latestState());
    if (answered && answered.success) saveReview(answered.success);
  });
  byId('end').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    const pending = reviewOf(latestState());
    // A note typed after the answer and not yet saved goes with End.
    if (pending && pending.success && note.value.trim() !== pending.note) saveReview(pending.success);
    if (savingReview) await savingReview;
    await post('/end', {});
    if (button.isConnected) button.disabled = false;
  });
  byId('end').focus();
}

/** state.review as {success, note} strings, or null when the daemon sends none. */
function reviewOf(state) {
  const review = state && state.review;
  if (!review || typeof review !== 'object') return null;
  return {
    success: typeof review.success === 'string' ? review.success : '',
    note: typeof review.note === 'string' ? review.note : '',
  };
}

/** POSTs the answer with the note as typed; End waits for it. */
function saveReview(success) {
  const note = byId('review-note').value.trim();
  const request = post('/review', { success, note }).then(() => {
    if (savingReview === request) savingReview = null;
  });
  savingReview = request;
  return request;
}

/** Partial update from a new State. */
export function update(state) {
  const outcome = String(state.outcome || '');
  const outcomeElement = byId('outcome');
  outcomeElement.dataset.outcome = outcome;
  setText('outcome', kOutcomeWords[outcome] || outcome || 'Session over');
  const commitment = state.commitment || {};
  setText('review-next-action', String(commitment.next_action || ''));

  updateRecap(state.reflection);
  followDaemonNote(reviewOf(state));
  updateQuestion(commitment, reviewOf(state));
  updateTimeline(state);
  updateFocus(state);

  const stats = state.stats || {};
  const buckets = Array.isArray(stats.buckets) ? stats.buckets.filter((bucket) => bucket) : [];
  const neutral = neutralSecsByApp(state.timeline);
  const key = JSON.stringify([buckets, neutral]);
  if (key !== renderedBucketsKey) {
    renderedBucketsKey = key;
    const largest = buckets.reduce((max, bucket) => Math.max(max, finiteOr(bucket.secs, 0)), 0);
    byId('buckets').replaceChildren(
      ...buckets.map((bucket) => bucketItem(bucket, largest, neutral[String(bucket.app || '')] || 0)));
  }
  setHidden(byId('buckets-empty'), buckets.length > 0);
  setText('switches', String(stats.switches || 0));
  setText('drift-episodes', String(stats.drift_episodes || 0));
  setText('drift-time', formatClock(stats.drift_secs || 0));
  setText('away-time', formatClock(stats.away_secs || 0));
  setText('corrections', String(stats.corrections || 0));
  updateAiCalls(stats.ai_calls);
  updateAiCost(stats.ai_cost);
}

/** Key of the rendered drift-by-site list, so it is rebuilt only when it changes. */
let renderedFocusKey = '';

/**
 * Where the drift went and the longest stretch (issue 17 item 5); hidden
 * when the daemon does not know them (a session from before they existed).
 */
function updateFocus(state) {
  const sites = Array.isArray(state.drift_by_site) ? state.drift_by_site.filter((site) => site) : null;
  setHidden(byId('focus-section'), sites === null);
  if (sites === null) return;
  const key = JSON.stringify(sites);
  if (key !== renderedFocusKey) {
    renderedFocusKey = key;
    byId('drift-sites').replaceChildren(...sites.map((site) => {
      const item = document.createElement('li');
      item.textContent = siteDriftLine(site);
      return item;
    }));
  }
  setHidden(byId('drift-sites-empty'), sites.length > 0);
  setText('longest-stretch', stretchLine(state.longest_on_task));
}

/** Takes a note saved elsewhere into the field unless the person typed their own. */
function followDaemonNote(review) {
  if (!review || review.note === daemonNote) return;
  const field = byId('review-note');
  if (field.value.trim() === daemonNote.trim()) field.value = review.note;
  daemonNote = review.note;
}

/** The question, the pressed answer and the saved line; hidden when the daemon has no review. */
function updateQuestion(commitment, review) {
  setHidden(byId('success-question'), review === null);
  if (review === null) return;
  const condition = String(commitment.success_condition || '');
  setText('review-success', condition ? `Done when: ${condition}` : '');
  for (const button of byId('success-question').querySelectorAll('.answer')) {
    const pressed = String(button.dataset.success === review.success);
    if (button.getAttribute('aria-pressed') !== pressed) button.setAttribute('aria-pressed', pressed);
  }
  updateSaved(review);
}

/** One quiet line: saved, what saves the note, or nothing. */
function updateSaved(review) {
  if (!review) return;
  const typed = byId('review-note').value.trim();
  let text = '';
  if (review.success && typed !== review.note) text = 'Enter saves the note.';
  else if (review.success) text = 'Saved.';
  else if (typed !== '') text = 'Pick yes, partly or no to save the note.';
  setText('review-saved', text);
}

/** The timeline strip over the session (state.timeline); hidden when the daemon sends none. */
function updateTimeline(state) {
  const timeline = state.timeline;
  setHidden(byId('timeline-section'), !Array.isArray(timeline));
  if (!Array.isArray(timeline)) return;
  const commitment = state.commitment || {};
  const range = { startMs: commitment.started_at, endMs: state.ended_at };
  const key = JSON.stringify([timeline, range]);
  if (key === renderedTimelineKey) return;
  renderedTimelineKey = key;
  const figure = timelineFigure(timeline, { ...range, label: 'Timeline of this session' });
  byId('review-timeline').replaceChildren(...(figure ? [figure] : []));
  setHidden(byId('timeline-empty'), figure !== null);
}

/** "AI calls: judge 3 · nudge 1 · coach 2" (stats.ai_calls); hidden when none were made. */
function updateAiCalls(calls) {
  const parts = [];
  for (const role of ['judge', 'nudge', 'coach', 'reviewer']) {
    const count = calls ? Number(calls[role]) || 0 : 0;
    if (count > 0) parts.push(`${role} ${count}`);
  }
  setText('ai-calls', parts.length > 0 ? `AI calls this session: ${parts.join(' · ')}` : '');
  setHidden(byId('ai-calls'), parts.length === 0);
}

/**
 * "AI cost: 4 calls · 2,310 tokens in · 95 out (estimated) · 6 s waiting"
 * (stats.ai_cost; issue 18 item 4); hidden when no call was made.
 */
function updateAiCost(cost) {
  const text = formatAiCost(cost);
  setText('ai-cost', text ? `AI cost: ${text}` : '');
  setHidden(byId('ai-cost'), text === '');
}

/**
 * Seconds AntiDrift's own page was in front, by app, from the timeline's
 * "neutral" spans (issue 17 item 4: looking at AntiDrift is neutral time,
 * drawn as the timeline draws it, not as "not judged").
 */
function neutralSecsByApp(timeline) {
  const byApp = {};
  if (!Array.isArray(timeline)) return byApp;
  for (const span of timeline) {
    if (!span || span.status !== 'neutral') continue;
    const secs = Math.max(0, (finiteOr(span.end, 0) - finiteOr(span.start, 0)) / 1000);
    const app = String(span.app || '');
    byApp[app] = (byApp[app] || 0) + secs;
  }
  return byApp;
}

/**
 * One app's row: a bar as long as its time (relative to the largest),
 * split into on-task, drifting, AntiDrift's own page (`neutralSecs`, from
 * the timeline) and the rest (not judged) when the daemon sends ontask_secs
 * and drifting_secs; the split in the tooltip.
 */
function bucketItem(bucket, largest, neutralSecs = 0) {
  const secs = Math.max(0, finiteOr(bucket.secs, 0));
  const appName = String(bucket.app || 'unknown');
  const item = document.createElement('li');
  item.className = 'bucket';
  item.dataset.app = String(bucket.app || '');
  const app = document.createElement('span');
  app.className = 'bucket-app';
  app.textContent = appName;
  const track = document.createElement('span');
  track.className = 'bar-track';
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${largest > 0 ? Math.max(2, (secs / largest) * 100) : 2}%`;
  const split = typeof bucket.ontask_secs === 'number' || typeof bucket.drifting_secs === 'number';
  let tooltip = `${appName}: ${formatClock(secs)}`;
  if (split) {
    bar.dataset.split = 'true';
    const onTask = Math.min(secs, Math.max(0, finiteOr(bucket.ontask_secs, 0)));
    const drifting = Math.min(secs - onTask, Math.max(0, finiteOr(bucket.drifting_secs, 0)));
    const own = Math.min(secs - onTask - drifting, Math.max(0, Math.round(neutralSecs)));
    bar.append(barPart('bar-ontask', onTask, secs), barPart('bar-drifting', drifting, secs),
      barPart('bar-neutral', own, secs));
    tooltip += ` · on task ${formatClock(onTask)} · drifting ${formatClock(drifting)}`;
    if (own > 0) tooltip += ` · AntiDrift itself ${formatClock(own)}`;
  }
  track.title = tooltip;
  track.append(bar);
  const time = document.createElement('span');
  time.className = 'bucket-time muted small';
  time.textContent = formatClock(secs);
  item.append(app, track, time);
  return item;
}

/** A segment of a bucket's bar: `part` of `whole` seconds. */
function barPart(className, part, whole) {
  const segment = document.createElement('span');
  segment.className = className;
  segment.style.width = `${whole > 0 ? (part / whole) * 100 : 0}%`;
  return segment;
}

/** Recap: pending → a quiet line; ready → recap + carry-forward; otherwise nothing. */
function updateRecap(reflection) {
  const status = reflection ? String(reflection.status || '') : '';
  const box = byId('recap');
  box.dataset.status = status;
  if (status === 'pending') {
    setText('recap-status', 'Writing a recap…');
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
