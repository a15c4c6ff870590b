/*
 * One event stream per browser, shared by every AntiDrift tab (issue 8
 * item 3). Browsers allow six HTTP/1.1 connections per host, and an
 * EventSource holds one for good: with one per tab, the seventh tab could
 * neither load nor press a button. This SharedWorker holds the only
 * EventSource on /events and forwards what it brings to every tab's port:
 *   {type: 'open'}                 the stream (re)opened
 *   {type: 'state', data: <text>}  a `state` event's data, as sent
 *   {type: 'lost'}                 the stream failed or the daemon said bye
 *   {type: 'token'}                the daemon's token was rotated: the tabs'
 *                                  copies are stale (issue 19 item 7)
 * A tab sends {type: 'close'} when it goes away and {type: 'join'} when it
 * comes back from the back/forward cache. A tab that joins an open
 * stream is told 'open' and loads the current State itself (GET /state):
 * a State kept here would carry an old "now".
 */

const kRetryMs = 2000;
const ports = new Set();
let source = null;

function broadcast(message) {
  for (const port of ports) port.postMessage(message);
}

function open() {
  source = new EventSource('/events');
  source.addEventListener('open', () => broadcast({ type: 'open' }));
  source.addEventListener('state', (event) => broadcast({ type: 'state', data: event.data }));
  source.addEventListener('bye', () => broadcast({ type: 'lost' }));
  source.addEventListener('token', () => broadcast({ type: 'token' }));
  source.addEventListener('error', () => {
    broadcast({ type: 'lost' });
    // The browser reconnects by itself unless the answer was not a stream
    // (e.g. 503): then retry after the stream's own `retry`.
    if (source.readyState === EventSource.CLOSED) {
      source = null;
      setTimeout(() => {
        if (!source && ports.size > 0) open();
      }, kRetryMs);
    }
  });
}

self.addEventListener('connect', (event) => {
  const port = event.ports[0];
  ports.add(port);
  port.addEventListener('message', (message) => {
    if (message.data && message.data.type === 'join') {
      ports.add(port);
      if (!source) open();
    } else if (message.data && message.data.type === 'close') {
      ports.delete(port);
      if (ports.size === 0 && source) {
        source.close();  // no tab left: give the daemon its slot back
        source = null;
      }
    }
  });
  port.start();
  if (!source) {
    open();
  } else if (source.readyState === EventSource.OPEN) {
    port.postMessage({ type: 'open' });
  }
});
