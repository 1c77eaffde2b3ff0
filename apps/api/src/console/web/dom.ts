/** Building the page's elements: a tag, its attributes and handlers, its children. No framework. */

export type Child = Node | string | number | null | undefined | false;
type Attribute = string | number | boolean | undefined | ((event: Event) => void);

/** An element: `h('td', { class: 'n', 'data-state': 'RUNNING' }, '3')`; `on<event>` attributes are handlers. */
export const h = (tag: string, attributes: Record<string, Attribute> = {}, ...children: (Child | readonly Child[])[]): HTMLElement => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
};

const append = (parent: Element, children: readonly (Child | readonly Child[])[]): void => {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
};

/** Replaces what `parent` shows. */
export const show = (parent: Element, ...children: (Child | readonly Child[])[]): void => {
  parent.replaceChildren();
  append(parent, children);
};

/** The element with this id; the page is broken without it. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

/** A table with a header row and one row each. */
export const table = (headings: readonly string[], rows: readonly HTMLElement[], empty = 'none'): HTMLElement =>
  rows.length === 0
    ? h('p', { class: 'empty' }, empty)
    : h('table', {}, h('thead', {}, h('tr', {}, headings.map((heading) => h('th', {}, heading)))), h('tbody', {}, rows));
