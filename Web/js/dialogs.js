// Modal dialogs: the modal itself, confirmations and a new conversation.
import { api } from './api.js';
import { h, toast, errorLine } from './dom.js';
import { avatar, lastSeen } from './format.js';
import { summaryFrom } from './model.js';
import { state, isOnline, loadConversations, loadPresence } from './state.js';

let dialogCount = 0;

/** A modal <dialog>; Escape closes it (the browser's own), focus goes back where it was. */
export function modal(title, body, { className = '', onClose } = {}) {
  const titleId = `dialog-title-${++dialogCount}`;
  const before = document.activeElement;
  const dlg = h('dialog', { class: `dialog ${className}`, 'aria-labelledby': titleId },
    h('header', { class: 'dialog-head' },
      h('h2', { id: titleId }, title),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close', onclick: () => dlg.close() }, '×')),
    body);
  dlg.addEventListener('close', () => {
    dlg.remove();
    if (onClose) onClose();
    if (before && before.isConnected) before.focus();
  });
  document.body.append(dlg);
  dlg.showModal();
  return dlg;
}

/** Resolves true when the person presses the action button. */
export function confirmDialog(text, action = 'Delete', title = 'Are you sure?') {
  return new Promise((resolve) => {
    let answer = false;
    const dlg = modal(title, h('div', { class: 'dialog-body' },
      h('p', null, text),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', onclick: () => dlg.close() }, 'Cancel'),
        h('button', { type: 'button', class: 'danger', onclick: () => { answer = true; dlg.close(); } }, action))),
    { className: 'confirm', onClose: () => resolve(answer) });
    // The safe choice has focus, so an Enter pressed by reflex deletes nothing.
    dlg.querySelector('.dialog-actions button').focus();
  });
}

export function presenceText(id, fallbackSeen) {
  if (isOnline(id)) return 'online';
  const p = state.presence.get(id);
  return lastSeen((p && p.lastSeen) || fallbackSeen);
}

export async function knownPeers() {
  const [peers] = await Promise.all([api('known_peers'), loadPresence().catch(() => {})]);
  return peers.sort((a, b) => a.name.localeCompare(b.name));
}

/** `open(id)` shows a conversation; `preselect` ticks one peer. */
export async function newConversationDialog(open, preselect = null) {
  let peers;
  try {
    peers = await knownPeers();
  } catch (e) {
    toast(`Could not read the known peers: ${e.message}`);
    return;
  }
  const error = errorLine();
  const boxes = peers.map((p) => h('input', {
    type: 'checkbox', value: p.id, 'aria-label': p.name, checked: p.id === preselect,
    disabled: p.trust === 'blocked',
  }));
  const people = peers.length
    ? h('ul', { class: 'pick-list', role: 'list' }, peers.map((p, i) => h('li', null,
      h('label', { class: 'pick' }, boxes[i], avatar(p.id, p.name, 'small'),
        h('span', { class: 'pick-name' }, p.name, p.trust === 'verified' ? h('span', { class: 'verified', title: 'Verified' }, ' ✓') : null),
        h('span', { class: `presence ${isOnline(p.id) ? 'online' : ''}` },
          p.trust === 'blocked' ? 'blocked' : presenceText(p.id, p.lastSeenAt))))))
    : h('p', { class: 'hint' }, 'No known peers yet. Peers on your network appear when their node runs.');
  const title = h('input', { type: 'text', id: 'new-title', maxlength: '200', autocomplete: 'off' });
  const first = h('textarea', { id: 'new-first', rows: '3', required: true });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create');
  const form = h('form', { class: 'dialog-body', novalidate: true },
    h('fieldset', null, h('legend', null, 'People'), people),
    h('label', { for: 'new-title' }, 'Title'),
    title,
    h('p', { class: 'hint' }, 'Optional. A title makes it a group.'),
    h('label', { for: 'new-first' }, 'First message'),
    first,
    error,
    h('div', { class: 'dialog-actions' },
      h('button', { type: 'button', onclick: () => dlg.close() }, 'Cancel'), create));
  first.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
    const text = first.value.trim();
    const name = title.value.trim();
    if (!chosen.length) { error.textContent = 'Choose at least one person.'; return; }
    if (!text) { error.textContent = 'Write the first message.'; first.focus(); return; }
    create.disabled = true;
    error.textContent = '';
    try {
      const id = await startConversation(chosen, name, text);
      dlg.close();
      await loadConversations().catch(() => {});
      open(id);
    } catch (err) {
      error.textContent = err.message;
      create.disabled = false;
    }
  });
  const dlg = modal('New conversation', form, { className: 'new-conv' });
  (preselect ? first : boxes.find((b) => !b.disabled) || first).focus();
}

// One person and no title is a 1:1: reuse the thread with that peer if there is one.
async function startConversation(participants, title, text) {
  if (participants.length === 1 && !title) {
    const all = (await api('conversations', { filter: 'all' })).map(summaryFrom);
    const existing = all.find((c) => !c.title && !c.isFormerMember && c.participants.length === 1
      && c.participants[0].id === participants[0]);
    if (existing) {
      await api('send', { conversation: existing.id, text });
      if (existing.isArchived) await api('set_flag', { conversation: existing.id, flag: 'archived', value: false });
      return existing.id;
    }
  }
  const params = { participants, firstMessage: text };
  if (title) params.title = title;
  return (await api('create', params)).conversation;
}
