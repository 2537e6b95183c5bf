// DOM helpers. Every node is made with createElement / createTextNode;
// nothing is ever parsed from a string as HTML, so log text stays text.

const PROPS = new Set(['value', 'checked', 'selected', 'disabled', 'hidden', 'tabIndex', 'title', 'type', 'name', 'id', 'htmlFor']);

export const $ = (id) => document.getElementById(id);

// h('tag', {class, text, onclick, attr: value, ...}, ...children)
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  setProps(el, props);
  add(el, kids);
  return el;
}

// The SVG namespace, taken from the page's own <svg> (so no URL is written here).
let svgNS = '';

export function s(tag, props, ...kids) {
  if (!svgNS) svgNS = document.querySelector('svg').namespaceURI;
  const el = document.createElementNS(svgNS, tag);
  setProps(el, props, true);
  add(el, kids);
  return el;
}

function setProps(el, props, svg) {
  if (!props) return;
  for (const [k, v] of Object.entries(props)) {
    if (v == null || v === false) continue;
    if (k === 'class') {
      if (svg) el.setAttribute('class', v); else el.className = v;
    } else if (k === 'text') {
      el.textContent = v;
    } else if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (!svg && PROPS.has(k)) {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
}

export function add(el, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k == null || k === false) continue;
    el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

// show/hide a node (the hidden attribute keeps it out of the accessibility tree).
export function show(el, on = true) {
  el.hidden = !on;
}

// setText replaces a node's text (never markup).
export function setText(el, text) {
  el.textContent = text == null ? '' : String(text);
}

// isEditable tells whether a key press is typing into a field.
export function isEditable(t) {
  if (!t || !(t instanceof Element)) return false;
  if (t.isContentEditable) return true;
  const tag = t.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(t.type);
  }
  return false;
}
