// Element building without ever parsing markup: every string becomes a text node, so
// nothing a peer wrote can turn into HTML.

const asProperty = new Set(['value', 'checked', 'disabled', 'hidden', 'type', 'htmlFor', 'tabIndex']);

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value == null || value === false) continue;
      if (key === 'class') el.className = value;
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else if (asProperty.has(key)) el[key] = value;
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces `el`'s content, keeping focus on the matching control (data-focus) if it had it. */
export function replaceKeepingFocus(oldNode, newNode) {
  const focused = oldNode.contains(document.activeElement) ? document.activeElement : null;
  const tag = focused && focused.dataset.focus;
  oldNode.replaceWith(newNode);
  if (tag) {
    const again = newNode.querySelector(`[data-focus="${CSS.escape(tag)}"]`);
    if (again) again.focus();
  }
}

/** A line that says what went wrong, announced as it appears. */
export const errorLine = (...text) => h('p', { class: 'form-error', role: 'alert' }, text);

let toastBox;
/** A short message that goes away by itself; errors are announced. */
export function toast(text, kind = 'error') {
  toastBox ||= document.getElementById('toasts');
  const item = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
  toastBox.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 7000 : 3500);
}

export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
