/*
 * History (docs/DESIGN.md §11, issue 7), shown under the locked view: over the last
 * 14 days the focused minutes and the on-task share per day (js/charts.js),
 * and the recent sessions, each with its outcome, planned against actual
 * time, on-task share, the person's answer and note, the recap and its
 * timeline strip (js/timeline.js); Download links to /history/export.
 * Loaded with GET /history when the locked view mounts.
 */

import { focusedMinutesChart, onTaskShareChart, sanitizeDays } from './charts.js';
import { byId, setHidden, setText } from './dom.js';
import {
  carryLine, formatAiCost, formatDuration, formatMinutes, formatShare, formatWhen, kOutcomeWords,
  kSuccessWords,
  siteDriftLine, stretchLine,
} from './format.js';
import { finiteOr } from './svg.js';
import {
  downtimeGaps, sanitizeSpans, timelineFigure, timelineLegend,
} from './timeline.js';

/** How many sessions the history asks for (GET /history?n=). */
const kSessionCount = 20;

/** Fills the history section; a failure says so in #history-empty. */
export async function loadHistory() {
  const empty = byId('history-empty');
  let data;
  try {
    const response = await fetch(`/history?n=${kSessionCount}`, { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    data = await response.json();
  } catch (error) {
    if (empty.isConnected) {
      empty.textContent = 'History is unavailable right now.';
      setHidden(empty, false);
    }
    return;
  }
  const list = byId('history-list');
  if (!list || !list.isConnected) return;  // the view changed meanwhile
  const sessions = data && Array.isArray(data.sessions)
    ? data.sessions.filter((session) => session && typeof session === 'object') : [];
  list.replaceChildren(...sessions.map(historyItem));
  // One legend for every strip, naming only the statuses that occur.
  const statuses = sessions.flatMap((session) => sanitizeSpans(session.timeline).map((span) => span.status));
  const anyDown = sessions.some((session) => downtimeGaps(sanitizeSpans(session.timeline)).length > 0);
  byId('history-legend').replaceChildren(...(statuses.length > 0
    ? [timelineLegend(statuses, { downMs: anyDown ? null : 0 })] : []));
  setHidden(empty, sessions.length > 0);
  setHidden(byId('history-sessions'), sessions.length === 0);
  setHidden(byId('history-downloads'), sessions.length === 0);
  renderDays(sessions.length > 0 ? sanitizeDays(data.days) : []);
  renderWeek(data && data.week);
}

/** This week against last week beside the charts (issue 17 item 5). */
function renderWeek(week) {
  const weeks = week && typeof week === 'object' ? week : {};
  for (const [name, suffix] of [['this_week', 'this'], ['last_week', 'last']]) {
    const totals = weeks[name] && typeof weeks[name] === 'object' ? weeks[name] : {};
    const sessions = finiteOr(totals.sessions, 0);
    setText(`week-focused-${suffix}`, formatMinutes(finiteOr(totals.focused_secs, 0)));
    setText(`week-drift-${suffix}`, formatShare(finiteOr(totals.drift_share, null)));
    setText(`week-kept-${suffix}`, `${finiteOr(totals.kept, 0)} of ${sessions}`);
  }
}

/** The two day charts; hidden when there is no day to draw. */
function renderDays(days) {
  setHidden(byId('history-days'), days.length === 0);
  if (days.length === 0) return;
  byId('focused-chart').replaceChildren(focusedMinutesChart(days));
  byId('share-chart').replaceChildren(onTaskShareChart(days));
}

/** Text of a session field, "" when it is not a string. */
function textOf(value) {
  return typeof value === 'string' ? value.trim() : '';
}

function historyItem(session) {
  const item = document.createElement('li');
  item.className = 'session';
  const outcome = textOf(session.outcome);
  item.dataset.outcome = outcome;

  const head = document.createElement('div');
  head.className = 'session-head';
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.dataset.outcome = outcome;
  badge.textContent = kOutcomeWords[outcome] || outcome || '—';
  const action = document.createElement('span');
  action.className = 'history-action';
  action.textContent = textOf(session.next_action);
  const meta = document.createElement('span');
  meta.className = 'history-meta muted small';
  const started = finiteOr(session.started_at, 0);
  const ended = finiteOr(session.ended_at, 0);
  const actualSecs = finiteOr(session.actual_secs, ended > started && started > 0 ? (ended - started) / 1000 : 0);
  // When it started, as `antidrift history` prints it, then how long it ran (re-walk).
  const parts = [formatWhen(started || ended)];
  if (actualSecs > 0) parts.push(formatDuration(actualSecs));
  meta.textContent = parts.filter(Boolean).join(' · ');
  head.append(badge, action, meta);
  item.append(head);

  item.append(sessionNumbers(session, actualSecs));
  item.append(driftWhere(session));
  const cost = formatAiCost(session.ai_cost);  // issue 18 item 4
  if (cost) item.append(paragraph('session-ai muted small', `AI: ${cost}`));
  const note = textOf(session.note);
  if (note) item.append(paragraph('session-note small', `Note: ${note}`));
  const recap = textOf(session.recap);
  if (recap) item.append(paragraph('session-recap', recap));
  const carry = carryLine(textOf(session.carry_forward));
  if (carry) item.append(paragraph('session-carry muted small', `Next time: ${carry}`));

  const figure = timelineFigure(session.timeline, {
    startMs: started || undefined,
    endMs: ended || undefined,
    label: `Timeline of "${textOf(session.next_action)}"`,
    withLegend: false,
  });
  if (figure) item.append(figure);
  return item;
}

/** "Planned 25 min · actual 27 min · 82% on task · Met". */
function sessionNumbers(session, actualSecs) {
  const parts = [];
  const plannedSecs = finiteOr(session.planned_secs, finiteOr(session.timebox_secs, 0));
  if (plannedSecs > 0) parts.push(`Planned ${formatDuration(plannedSecs)}`);
  if (actualSecs > 0) parts.push(`${parts.length > 0 ? 'actual' : 'Actual'} ${formatDuration(actualSecs)}`);
  if (Object.hasOwn(session, 'on_task_share')) {
    const share = finiteOr(session.on_task_share, null);
    parts.push(share === null ? 'no window evidence' : `${formatShare(share)} on task`);
  }
  const success = kSuccessWords[textOf(session.success)];
  if (success) parts.push(success);
  const numbers = paragraph('session-numbers muted small', parts.join(' · '));
  setHidden(numbers, parts.length === 0);
  return numbers;
}

/**
 * "Drift went to: youtube.com 5 min over 6 visits · … · Longest on-task
 * stretch: 12 min" (issue 17 item 5); "unknown" for a session recorded
 * before these were kept (null), never 0.
 */
function driftWhere(session) {
  const sites = Array.isArray(session.drift_by_site) ? session.drift_by_site.filter((site) => site) : null;
  let where;
  if (sites === null) where = 'Drift went to: unknown';
  else if (sites.length === 0) where = 'No drift';
  else where = `Drift went to: ${sites.map(siteDriftLine).join(' · ')}`;
  return paragraph('session-drift small', `${where} · ${stretchLine(session.longest_on_task)}`);
}

function paragraph(className, text) {
  const element = document.createElement('p');
  element.className = className;
  element.textContent = text;
  return element;
}
