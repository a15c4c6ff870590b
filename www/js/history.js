/*
 * History (DESIGN §11): the recent sessions from the audit log, shown under
 * the locked view. Loaded with GET /history when the locked view mounts.
 */

import { byId, setHidden } from './dom.js';
import { formatDuration, formatWhen, kOutcomeWords } from './format.js';

/** Fills #history-list with the last 10 sessions; a failure says so in #history-empty. */
export async function loadHistory() {
  const list = byId('history-list');
  const empty = byId('history-empty');
  let sessions = [];
  try {
    const response = await fetch('/history?n=10', { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const data = await response.json();
    sessions = Array.isArray(data.sessions) ? data.sessions : [];
  } catch (error) {
    if (empty.isConnected) empty.textContent = 'History is unavailable right now.';
    return;
  }
  if (!list.isConnected) return;  // the view changed meanwhile
  list.replaceChildren(...sessions.map(historyItem));
  setHidden(empty, sessions.length > 0);
}

function historyItem(session) {
  const item = document.createElement('li');
  const outcome = String(session.outcome || '');
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.dataset.outcome = outcome;
  badge.textContent = kOutcomeWords[outcome] || outcome || '—';
  const action = document.createElement('span');
  action.className = 'history-action';
  action.textContent = session.next_action || '';
  const meta = document.createElement('span');
  meta.className = 'history-meta muted small';
  const started = session.started_at;
  const ended = session.ended_at;
  const parts = [formatWhen(ended || started)];
  if (typeof started === 'number' && typeof ended === 'number' && ended > started) {
    parts.push(formatDuration((ended - started) / 1000));
  }
  meta.textContent = parts.filter(Boolean).join(' · ');
  item.append(badge, action, meta);
  return item;
}
