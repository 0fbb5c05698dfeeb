// One popup menu at a time, operable by keyboard (arrows, Home/End, Escape) and mouse.
import { h } from './dom.js';

let current = null;

export function closeMenu(restoreFocus = true) {
  if (!current) return;
  const { el, trigger, returnFocus } = current;
  current = null;
  el.remove();
  trigger.setAttribute('aria-expanded', 'false');
  document.removeEventListener('pointerdown', onOutside, true);
  if (restoreFocus) {
    // The trigger may have been redrawn while the menu was open.
    const target = (returnFocus && returnFocus()) || trigger;
    if (target && target.isConnected) target.focus();
  }
}

function onOutside(e) {
  if (current && !current.el.contains(e.target) && !current.trigger.contains(e.target)) closeMenu(false);
}

/**
 * items: { label, onSelect, danger?, ariaLabel?, className? }; an item `{ row: [items] }`
 * draws its items side by side (the emoji of a message menu).
 */
export function openMenu(trigger, items, { label, returnFocus } = {}) {
  const again = current && current.trigger === trigger;
  closeMenu(false);
  if (again) { trigger.focus(); return; }
  const buttons = [];
  const makeItem = (item) => {
    const b = h('button', {
      type: 'button', role: 'menuitem', tabindex: '-1',
      class: `menu-item ${item.danger ? 'danger' : ''} ${item.className || ''}`,
      'aria-label': item.ariaLabel,
      onclick: () => { closeMenu(); item.onSelect(); },
    }, item.label);
    buttons.push(b);
    return b;
  };
  const el = h('div', { role: 'menu', class: 'menu', 'aria-label': label },
    items.filter(Boolean).map((item) => (item.row
      ? h('div', { role: 'group', class: 'menu-row', 'aria-label': item.label }, item.row.map(makeItem))
      : makeItem(item))));
  el.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement);
    const move = (to) => { e.preventDefault(); buttons[(to + buttons.length) % buttons.length].focus(); };
    if (e.key === 'ArrowDown' || e.key === 'ArrowRight') move(i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') move(i - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(buttons.length - 1);
    else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeMenu(); }
    else if (e.key === 'Tab') closeMenu(false);
  });
  document.body.append(el);
  current = { el, trigger, returnFocus };
  trigger.setAttribute('aria-expanded', 'true');
  place(el, trigger);
  document.addEventListener('pointerdown', onOutside, true);
  buttons[0]?.focus();
}

// Fixed next to the trigger, flipped to stay inside the window.
function place(el, trigger) {
  const r = trigger.getBoundingClientRect();
  const m = el.getBoundingClientRect();
  let top = r.bottom + 4;
  if (top + m.height > innerHeight - 8) top = Math.max(8, r.top - m.height - 4);
  let left = r.right - m.width;
  if (left < 8) left = Math.min(r.left, innerWidth - m.width - 8);
  el.style.top = `${Math.round(top)}px`;
  el.style.left = `${Math.round(Math.max(8, left))}px`;
}

export const menuIsOpen = () => Boolean(current);
