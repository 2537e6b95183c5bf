// The live tail: GET /api/sources/<source>/tail as Server-Sent Events,
// read with fetch (EventSource cannot send the X-API-KEY header) and parsed
// here. It pauses while the tab is hidden and resumes from the last event's
// cursor when it is visible again.

import { getKey, parseJSON } from './api.js';

// readSSE calls onMessage({event, data, id}) for each message of a stream.
export async function readSSE(body, onMessage) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let msg = { event: '', data: [], id: null };
  const line = (l) => {
    if (l.endsWith('\r')) l = l.slice(0, -1);
    if (l === '') {
      if (msg.data.length || msg.event) onMessage({ event: msg.event || 'message', data: msg.data.join('\n'), id: msg.id });
      msg = { event: '', data: [], id: null };
      return;
    }
    if (l[0] === ':') return; // a comment: ping
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    let value = i < 0 ? '' : l.slice(i + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') msg.data.push(value);
    else if (field === 'event') msg.event = value;
    else if (field === 'id') msg.id = value;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let j;
    while ((j = buf.indexOf('\n')) >= 0) {
      line(buf.slice(0, j));
      buf = buf.slice(j + 1);
    }
  }
}

export class Tail {
  // handlers: onEvent(event, cursor), onStatus(text, kind), onError(message)
  constructor(source, lql, handlers) {
    this.source = source;
    this.lql = lql;
    this.h = handlers;
    this.cursor = null;
    this.ctrl = null;
    this.stopped = true;
    this.paused = false;
    this.retry = 0;
    this.timer = 0;
  }

  start() {
    this.stopped = false;
    this.connect('now');
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ctrl) this.ctrl.abort();
    this.ctrl = null;
  }

  pause() {
    if (this.stopped || this.paused) return;
    this.paused = true;
    clearTimeout(this.timer);
    if (this.ctrl) this.ctrl.abort();
    this.ctrl = null;
    this.h.onStatus('Paused while the tab is hidden', 'paused');
  }

  resume() {
    if (this.stopped || !this.paused) return;
    this.paused = false;
    this.connect(this.cursor || 'now');
  }

  later(from, ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.stopped && !this.paused) this.connect(from);
    }, ms);
  }

  async connect(from) {
    if (this.ctrl) this.ctrl.abort();
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    const url = new URL('/api/sources/' + encodeURIComponent(this.source) + '/tail', location.origin);
    if (this.lql && this.lql.trim()) url.searchParams.set('lql', this.lql);
    url.searchParams.set('from', from);
    this.h.onStatus('Connecting…', 'connecting');
    let dropped = false;
    try {
      const res = await fetch(url, {
        headers: { 'X-API-KEY': getKey(), Accept: 'text/event-stream' },
        signal: ctrl.signal, cache: 'no-store', credentials: 'omit',
      });
      if (!res.ok) {
        let msg = `${res.status}`;
        try {
          const b = parseJSON(await res.text());
          if (b && b.error && b.error.message) msg = b.error.message;
        } catch { /* not JSON */ }
        if (res.status === 429 || res.status >= 500) {
          this.h.onStatus(`Tail refused (${msg}); retrying`, 'error');
          this.later(from, this.backoff());
        } else {
          this.stopped = true;
          this.h.onError(msg);
        }
        return;
      }
      await readSSE(res.body, (m) => {
        if (ctrl.signal.aborted) return;
        if (m.event === 'hello') {
          this.retry = 0;
          this.h.onStatus(`Following ${this.source}`, 'live');
          if (from === 'now') {
            try {
              const d = JSON.parse(m.data);
              if (d && d.cursor) this.cursor = d.cursor;
            } catch { /* keep the last cursor */ }
          }
        } else if (m.event === 'log') {
          if (m.id) this.cursor = m.id;
          let ev;
          try {
            ev = parseJSON(m.data);
          } catch {
            return;
          }
          this.h.onEvent(ev, m.id);
        } else if (m.event === 'lost') {
          let n = '?';
          try { n = JSON.parse(m.data).events; } catch { /* unknown */ }
          this.h.onStatus(`${n} events were lost (the reader fell behind)`, 'warn');
        } else if (m.event === 'dropped') {
          let reason = 'the server closed the tail';
          try { reason = JSON.parse(m.data).reason || reason; } catch { /* keep */ }
          dropped = true;
          this.cursor = null;
          this.h.onStatus(`Dropped: ${reason}. Reconnecting from now.`, 'warn');
        } else if (m.event === 'error') {
          this.h.onStatus(`Tail error: ${m.data}`, 'error');
        }
      });
      if (ctrl.signal.aborted || this.stopped || this.paused) return;
      this.later(dropped ? 'now' : this.cursor || 'now', dropped ? 2000 : this.backoff());
      if (!dropped) this.h.onStatus('The tail closed; reconnecting…', 'connecting');
    } catch (e) {
      if (ctrl.signal.aborted || this.stopped || this.paused) return;
      this.h.onStatus('The tail was cut off; reconnecting…', 'error');
      this.later(this.cursor || 'now', this.backoff());
    }
  }

  backoff() {
    this.retry = Math.min(this.retry + 1, 5);
    return 1000 * 2 ** (this.retry - 1);
  }
}
