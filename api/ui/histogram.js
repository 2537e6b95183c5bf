// The histogram: events per bucket over the range, drawn as SVG bars.
// Click a bar, or drag across bars, to narrow the range.

import { s, clear } from './dom.js';
import { msToISO } from './format.js';

export const UNIT_MS = { SECOND: 1000, MINUTE: 60000, HOUR: 3600000, DAY: 86400000 };

// unitFor picks the bucket so that a range has at most about 300 bars.
export function unitFor(rangeMs) {
  if (rangeMs <= 5 * 60000) return 'SECOND';
  if (rangeMs <= 5 * 3600000) return 'MINUTE';
  if (rangeMs <= 12.5 * 86400000) return 'HOUR';
  return 'DAY';
}

// buckets lays the server's rows ({t: µs, n}) over every bucket of the range.
export function buckets(fromMs, toMs, unit, rows) {
  const size = UNIT_MS[unit];
  const counts = new Map();
  for (const r of rows) {
    const ms = Number(BigInt(r.t) / 1000n);
    counts.set(ms, (counts.get(ms) || 0) + Number(r.n));
  }
  const out = [];
  const first = Math.floor(fromMs / size) * size;
  for (let t = first; t < toMs && out.length < 5000; t += size) {
    out.push({ start: Math.max(t, fromMs), end: Math.min(t + size, toMs), bucket: t, n: counts.get(t) || 0 });
  }
  return out;
}

const H = 110;
const TOP = 14;
const BOTTOM = 20;

function label(ms, unit, spanMs) {
  const iso = msToISO(ms);
  if (unit === 'DAY' || spanMs > 3 * 86400000) return iso.slice(5, 10) + (unit === 'DAY' ? '' : ' ' + iso.slice(11, 16));
  if (unit === 'SECOND') return iso.slice(11, 19);
  return iso.slice(11, 16);
}

export class Histogram {
  constructor(svg, onSelect) {
    this.svg = svg;
    this.onSelect = onSelect;
    this.data = [];
    this.unit = 'MINUTE';
    this.drag = null;
    svg.addEventListener('pointerdown', (e) => this.down(e));
    svg.addEventListener('pointermove', (e) => this.move(e));
    svg.addEventListener('pointerup', (e) => this.up(e));
    svg.addEventListener('pointercancel', () => this.cancel());
    if (typeof ResizeObserver === 'function') {
      let w = 0;
      new ResizeObserver(() => {
        const nw = this.width();
        if (nw !== w) {
          w = nw;
          this.draw();
        }
      }).observe(svg);
    }
  }

  width() {
    return Math.max(200, Math.round(this.svg.getBoundingClientRect().width || 800));
  }

  set(data, unit) {
    this.data = data;
    this.unit = unit;
    this.message = '';
    this.draw();
  }

  setMessage(text) {
    this.data = [];
    this.message = text;
    this.draw();
  }

  draw() {
    const svg = this.svg;
    const W = this.width();
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    clear(svg);
    const data = this.data;
    if (!data.length) {
      if (this.message) svg.append(s('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle', text: this.message }));
      return;
    }
    const max = Math.max(1, ...data.map((b) => b.n));
    const plotH = H - TOP - BOTTOM;
    const bw = W / data.length;
    this.bw = bw;
    svg.append(s('line', { x1: 0, x2: W, y1: H - BOTTOM + 0.5, y2: H - BOTTOM + 0.5, class: 'baseline' }));
    svg.append(s('text', { x: 2, y: 10, class: 'axis', text: `${max.toLocaleString('en-US')} max per ${this.unit.toLowerCase()}` }));
    const g = s('g', { class: 'bars' });
    data.forEach((b, i) => {
      if (!b.n) return;
      const bh = Math.max(1.5, (b.n / max) * plotH);
      g.append(s('rect', {
        class: 'bar', x: (i * bw + (bw > 3 ? 0.5 : 0)).toFixed(2), y: (H - BOTTOM - bh).toFixed(2),
        width: Math.max(1, bw - (bw > 3 ? 1 : 0)).toFixed(2), height: bh.toFixed(2), 'data-i': i,
      }, s('title', { text: `${msToISO(b.start)} – ${msToISO(b.end)}: ${b.n.toLocaleString('en-US')} events` })));
    });
    svg.append(g);
    this.sel = s('rect', { class: 'sel', x: 0, y: TOP - 4, width: 0, height: plotH + 4, visibility: 'hidden' });
    svg.append(this.sel);
    // axis labels, about one per 110px
    const span = data[data.length - 1].end - data[0].start;
    const every = Math.max(1, Math.ceil(110 / bw));
    for (let i = 0; i < data.length; i += every) {
      const x = i * bw;
      if (x > W - 40) break;
      svg.append(s('line', { x1: x + 0.5, x2: x + 0.5, y1: H - BOTTOM, y2: H - BOTTOM + 4, class: 'tick' }));
      svg.append(s('text', { x: x + 2, y: H - 5, class: 'axis', text: label(data[i].bucket, this.unit, span) }));
    }
  }

  index(e) {
    const r = this.svg.getBoundingClientRect();
    const x = (e.clientX - r.left) * (this.width() / r.width);
    return Math.max(0, Math.min(this.data.length - 1, Math.floor(x / this.bw)));
  }

  down(e) {
    if (!this.data.length || e.button !== 0) return;
    e.preventDefault();
    this.svg.setPointerCapture(e.pointerId);
    const i = this.index(e);
    this.drag = { a: i, b: i };
    this.paint();
  }

  move(e) {
    if (!this.drag) return;
    this.drag.b = this.index(e);
    this.paint();
  }

  paint() {
    if (!this.sel) return;
    const lo = Math.min(this.drag.a, this.drag.b);
    const hi = Math.max(this.drag.a, this.drag.b);
    this.sel.setAttribute('x', (lo * this.bw).toFixed(2));
    this.sel.setAttribute('width', ((hi - lo + 1) * this.bw).toFixed(2));
    this.sel.setAttribute('visibility', 'visible');
  }

  up(e) {
    if (!this.drag) return;
    this.drag.b = this.index(e);
    const lo = Math.min(this.drag.a, this.drag.b);
    const hi = Math.max(this.drag.a, this.drag.b);
    this.drag = null;
    this.onSelect(this.data[lo].start, this.data[hi].end);
  }

  cancel() {
    this.drag = null;
    if (this.sel) this.sel.setAttribute('visibility', 'hidden');
  }
}
