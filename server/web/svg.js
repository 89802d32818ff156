// Small DOM helpers shared by the page's modules.

export const SVG_NS = 'http://www.w3.org/2000/svg';

// svg('circle', {cx: 1, r: 2}, [children]) → an SVG element. Attributes whose value is
// null, undefined or false are left out; `text` sets the text content.
export function svg(tag, attrs = {}, children = []) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

// html('button', {class: 'x', text: 'Go'}) → an HTML element, same conventions as svg().
export function html(tag, attrs = {}, children = []) {
  return build(document.createElement(tag), attrs, children);
}

function build(element, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
}

// Rounds for SVG coordinates: keeps the markup short and stable.
export const r2 = (x) => Math.round(x * 100) / 100;

export const percent = (p) => `${(100 * p).toFixed(p > 0.995 || p < 0.005 ? 1 : 0)}%`;
