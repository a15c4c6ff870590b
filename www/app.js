/*
 * AntiDrift browser UI (docs/DESIGN.md §11): the entry module. Plain JavaScript ES
 * modules, no build step, no framework, nothing loaded from elsewhere.
 *
 * One event stream per browser (js/stream-worker.js, a SharedWorker that all
 * tabs share; js/net.js) brings the whole State on every change (docs/DESIGN.md §10,
 * §11; issue 8 item 3). Each runtime state has a <template> in index.html and a module in
 * js/ (locked, planning, active, review; history under locked). A view is
 * mounted (cloned) only when the runtime changes, or for active/review when
 * the session changes; every later State only updates fields in place. So
 * the planning inputs are never rebuilt while the person types (seed 003,
 * "Partial-update requirement"), and focus is never moved by an update.
 *
 * Everything from the State is written with textContent. Window titles are
 * private: they are displayed and never sent anywhere.
 */

import * as active from './js/active.js';
import { byId, clearError, errorElement } from './js/dom.js';
import * as locked from './js/locked.js';
import { connect, kUnreachable, loadState, onConnection, onState } from './js/net.js';
import * as planning from './js/planning.js';
import * as review from './js/review.js';
import { acceptNewer, forgetVersion, latestState } from './js/store.js';
import { setContactLost } from './js/notify.js';
import { refreshTab, setTabConnection } from './js/tab.js';
import { scheduleTick } from './js/ticker.js';
import { announceIfTimeUp } from './js/timeup.js';

/**
 * The page registers no Service Worker, so one that controls it was
 * registered by a page someone else served on this origin while the port was
 * theirs (docs/SECURITY.md M2): it sees every request, the token included.
 * Refuse to run under it: unregister every worker of the origin and reload
 * from the daemon (whose answer to the worker's update check is a worker that
 * removes itself, so this also holds when the impostor serves this page).
 * Returns true when the page must not start.
 */
function refuseForeignServiceWorker() {
  const workers = navigator.serviceWorker;
  if (!workers || !workers.controller) return false;
  document.body.textContent =
    'A Service Worker that AntiDrift did not install controls this page; removing it and reloading.';
  workers.getRegistrations()
    .then((registrations) => Promise.all(registrations.map((each) => each.unregister())))
    .finally(() => window.location.reload());
  return true;
}

/** Each runtime's view module: mount(state) once, update(state) on every State. */
const views = { locked, planning, active, review };

/** Key of the mounted view: runtime, plus the commitment id in active/review. */
let mountedKey = '';

function viewKey(state) {
  const session = state.commitment && state.commitment.id ? state.commitment.id : '';
  return state.runtime === 'active' || state.runtime === 'review'
    ? `${state.runtime}:${session}` : state.runtime;
}

/** The own-page tag this page was served with (its title ends "AntiDrift <tag>"). */
const kPageTag = (() => {
  const meta = document.querySelector('meta[name="antidrift-page-tag"]');
  return meta ? meta.getAttribute('content') || '' : '';
})();

/**
 * The daemon now serves another tag (it restarted with a rotated token):
 * this tab is still known as AntiDrift's own by its old tag, but only until
 * it reloads and takes the new one, so it reloads now. At most once per tag,
 * so a page that comes back with the old tag anyway cannot loop.
 */
function reloadForNewPageTag(state) {
  const tag = typeof state.page_tag === 'string' ? state.page_tag : '';
  if (!tag || !kPageTag || tag === kPageTag) return false;
  try {
    if (window.sessionStorage.getItem('antidrift-reloaded-for-tag') === tag) return false;
    window.sessionStorage.setItem('antidrift-reloaded-for-tag', tag);
  } catch (error) {
    // No session storage: reload anyway; the reloaded page carries the tag.
  }
  window.location.reload();
  return true;
}

/**
 * Takes a State from the stream, /state or a POST answer; stale ones are
 * ignored. A timebox that ran out since the last State is announced.
 */
function accept(state) {
  if (reloadForNewPageTag(state)) return;
  const previous = latestState();
  if (!acceptNewer(state)) return;
  announceIfTimeUp(previous, state);
  render(state);
}

function render(state) {
  const view = views[state.runtime];
  if (!view) return;
  const key = viewKey(state);
  if (key !== mountedKey) {
    const template = byId(`tpl-${state.runtime}`);
    const root = byId('view');
    root.replaceChildren(template.content.cloneNode(true));
    root.dataset.view = state.runtime;
    mountedKey = key;
    view.mount(state);
  }
  view.update(state);
  refreshTab();
  scheduleTick();
}

const kConnectionWords = {
  connecting: 'connecting…',
  open: '',
  lost: 'Lost contact with AntiDrift — reconnecting…',
  // issue 19 item 7: the token this page carries is no longer accepted
  rotated: 'AntiDrift’s key changed (antidrift token --rotate): reload this page to go on',
};

/**
 * The connection line in the top bar, and data-connection on <html>: while
 * "lost" (or "rotated": the page must be reloaded), the style sheet greys out
 * what the page can no longer vouch for (evidence health, focus, the drift
 * tiers) until the stream is back.
 */
function setConnection(status, stream = status) {
  const element = byId('connection');
  const text = kConnectionWords[status];
  if (element.textContent !== text) element.textContent = text;
  element.dataset.status = status === 'open' ? 'ok' : 'problem';
  document.documentElement.dataset.connection = status;
  setTabConnection(status);
  // After a rotation the stream still brings States (it needs no token), so
  // what the daemon notifies and holds is still known while it is open.
  setContactLost(stream !== 'open');
  // Back in contact: "… did not reach it. Try again once it is back" is
  // over (issue 17 item 4); any other error line stays until the next action.
  if (status === 'open') {
    const errorLine = errorElement();
    if (errorLine && errorLine.textContent === kUnreachable) clearError(errorLine);
  }
}

if (!refuseForeignServiceWorker()) {
  onState(accept);
  onConnection(setConnection);
  setConnection('connecting');
  loadState();
  connect({
    // A restarted daemon may count versions from scratch.
    onOpen: forgetVersion,
  });
}
