// Small DOM helpers: every text goes in as a text node (never as HTML), so stored content cannot
// inject markup into the console.

/** h('a', {href: '#/x', class: 'y', onclick}, 'text', child, [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function when(value) {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : DATE.format(d);
}

export function time(value) {
  return value ? h('time', { datetime: new Date(value).toISOString() }, when(value)) : '';
}

export const short = (id) => String(id ?? '').slice(0, 8);

export const num = (n) => (typeof n === 'number' ? n.toLocaleString() : (n ?? ''));

/** A status line for errors and results; role=status so screen readers announce it. */
export function notice(text, kind = 'info') {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

export function loading() {
  return h('p', { class: 'notice', role: 'status' }, 'Loading…');
}

/**
 * Asks before something that cannot be undone, naming what will go. Resolves true on confirm.
 * A <dialog> (modal, focus-trapped, Escape closes it).
 */
export function confirmDialog(title, lines, action = 'Delete') {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, title),
      h(
        'ul',
        {},
        lines.map((l) => h('li', {}, l)),
      ),
      h(
        'form',
        { method: 'dialog', class: 'row' },
        h('button', { value: 'cancel', class: 'secondary' }, 'Cancel'),
        h('button', { value: 'ok', class: 'danger' }, action),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * Markdown as memloom's working memory writes it (headings, lists, paragraphs, **bold**, *em*,
 * `code`), rendered to elements: text never becomes HTML.
 */
export function markdown(text) {
  const root = h('div', { class: 'markdown' });
  let list;
  let para;
  const close = () => {
    list = undefined;
    para = undefined;
  };
  for (const line of text.split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*+]|\d+\.)\s+(.*)$/.exec(line);
    if (heading) {
      close();
      root.append(h(`h${Math.min(6, heading[1].length + 1)}`, {}, inline(heading[2])));
    } else if (item) {
      para = undefined;
      if (!list) {
        list = h(/^\s*\d+\./.test(line) ? 'ol' : 'ul');
        root.append(list);
      }
      list.append(h('li', {}, inline(item[1])));
    } else if (line.trim() === '') {
      close();
    } else {
      list = undefined;
      if (!para) {
        para = h('p');
        root.append(para);
      } else para.append(' ');
      para.append(...inline(line));
    }
  }
  return root;
}

function inline(text) {
  const out = [];
  const re = /(\*\*[^*]+\*\*|`[^`]+`|\*[^*\s][^*]*\*|_[^_\s][^_]*_)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const t = m[0];
    if (t.startsWith('**')) out.push(h('strong', {}, t.slice(2, -2)));
    else if (t.startsWith('`')) out.push(h('code', {}, t.slice(1, -1)));
    else out.push(h('em', {}, t.slice(1, -1)));
    last = m.index + t.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * A paginated list: `load(cursor)` answers { items, next } (next: the cursor of the next page, or
 * null); `row(item)` draws one item. Pages are appended under a "More" button, never loaded whole.
 */
export function pager(load, row, { empty = 'Nothing here yet.', more = 'More', container = () => h('ul', { class: 'list' }) } = {}) {
  const list = container();
  // A table's rows go into its body.
  const target = list.querySelector('tbody') ?? list;
  const status = h('div');
  const button = h('button', { type: 'button', class: 'secondary more', hidden: true }, more);
  let cursor;
  let shown = 0;
  async function next() {
    button.disabled = true;
    try {
      const page = await load(cursor);
      for (const item of page.items) target.append(row(item));
      shown += page.items.length;
      cursor = page.next;
      button.hidden = !cursor;
      status.replaceChildren(shown === 0 ? notice(empty) : '');
    } catch (err) {
      status.replaceChildren(notice(err.message, 'error'));
    } finally {
      button.disabled = false;
    }
  }
  button.addEventListener('click', next);
  const el = h('div', { class: 'pager' }, list, status, button);
  return { el, ready: next() };
}
