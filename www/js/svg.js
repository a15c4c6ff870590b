/*
 * Small SVG pieces built with DOM APIs (createElementNS); every text is set
 * with textContent, nothing is parsed as markup. No chart framework.
 */

const kSvgNamespace = 'http://www.w3.org/2000/svg';

/** A new SVG element `name` with the given attributes (values turned into strings). */
export function svgElement(name, attributes = {}) {
  const element = document.createElementNS(kSvgNamespace, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** Appends a <title> (the browser's tooltip) with `text` to `element`; returns `element`. */
export function withTitle(element, text) {
  const title = svgElement('title');
  title.textContent = text;
  element.append(title);
  return element;
}

/** A finite number from `value`, else `fallback`. */
export function finiteOr(value, fallback) {
  const number = Number(value);
  return typeof value === 'number' && Number.isFinite(number) ? number : fallback;
}
