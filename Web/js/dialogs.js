// Modal dialogs: confirmations, a new conversation, people, members and settings.
import { api } from './api.js';
import { h, toast } from './dom.js';
import { avatar, fingerprint, lastSeen } from './format.js';
import { convName, isGroup, summaryFrom } from './model.js';
import { state, isOnline, loadConversations, loadPresence, loadSummary, emit } from './state.js';
import { notificationsOn, notificationsSupported, setNotifications } from './notify.js';

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

const errorLine = () => h('p', { class: 'form-error', role: 'alert' });

function presenceText(id, fallbackSeen) {
  if (isOnline(id)) return 'online';
  const p = state.presence.get(id);
  return lastSeen((p && p.lastSeen) || fallbackSeen);
}

async function knownPeers() {
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

export async function peopleDialog(open) {
  const body = h('div', { class: 'dialog-body' }, h('p', { class: 'hint' }, 'Loading…'));
  const dlg = modal('People', body, { className: 'people' });
  const draw = async () => {
    let peers;
    try {
      peers = await knownPeers();
    } catch (e) {
      body.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, `Could not read the known peers: ${e.message}`));
      return;
    }
    if (!peers.length) {
      body.replaceChildren(h('p', { class: 'hint' }, 'No known peers yet. Peers on your network appear here when their node runs.'));
      return;
    }
    const trust = async (p, value) => {
      try {
        await api('set_trust', { peer: p.id, trust: value });
        emit('trust');
        await draw();
      } catch (e) { toast(e.message); }
    };
    // The safety number both sides show (as `confab verify` does): compared in person or on
    // a call, it proves each holds the other's real key.
    const verify = async (p) => {
      let number;
      try {
        number = (await api('safety_number', { peer: p.id })).safetyNumber;
      } catch (e) { toast(e.message); return; }
      const ok = await confirmDialog(
        `Compare this safety number with ${p.name}'s, in person or on a call: their Confab shows the same one for you. ` +
        `Mark ${p.name} as verified only if every digit matches.\n\n${number}`,
        'Verify', 'Verify key');
      if (ok) trust(p, 'verified');
    };
    body.replaceChildren(h('ul', { class: 'people-list', role: 'list', 'aria-label': 'Known peers' }, peers.map((p) => {
      const presence = state.presence.get(p.id);
      const warning = (presence && presence.warning) || p.warning;
      return h('li', { class: 'person' },
        avatar(p.id, p.name),
        h('div', { class: 'person-main' },
          h('div', { class: 'person-name' }, p.name,
            p.trust === 'verified' ? h('span', { class: 'verified', 'aria-label': 'verified' }, ' ✓') : null),
          h('div', { class: `presence ${isOnline(p.id) ? 'online' : ''}` }, presenceText(p.id, p.lastSeenAt)),
          h('div', { class: 'fingerprint' }, h('span', { class: 'sr-only' }, 'Fingerprint '), fingerprint(p.id)),
          h('div', { class: `trust trust-${p.trust}` }, p.trust),
          warning ? h('p', { class: 'warning' }, warning) : null),
        h('div', { class: 'person-actions' },
          p.trust !== 'blocked' ? h('button', { type: 'button', onclick: () => { dlg.close(); openPeer(open, p.id); } }, 'Message') : null,
          p.trust === 'unverified' ? h('button', { type: 'button', onclick: () => verify(p) }, 'Verify') : null,
          p.trust !== 'blocked'
            ? h('button', { type: 'button', class: 'danger', onclick: () => trust(p, 'blocked') }, 'Block')
            : h('button', { type: 'button', onclick: () => trust(p, 'unverified') }, 'Unblock')));
    })));
  };
  await draw();
}

async function openPeer(open, peerId) {
  try {
    const all = (await api('conversations', { filter: 'all' })).map(summaryFrom);
    const existing = all.find((c) => !c.title && c.participants.length === 1 && c.participants[0].id === peerId);
    if (existing) { open(existing.id); return; }
  } catch { /* fall through to a new conversation */ }
  newConversationDialog(open, peerId);
}

export async function membersDialog(conversationId, close) {
  let list;
  let summary;
  try {
    [list, summary] = await Promise.all([api('members', { conversation: conversationId }), loadSummary(conversationId)]);
  } catch (e) {
    toast(`Could not read the members: ${e.message}`);
    return;
  }
  const trustOf = new Map(summary.participants.map((p) => [p.id, p.trust]));
  const row = (m) => {
    const me = state.me && m.id === state.me.id;
    return h('li', { class: 'person' },
      avatar(m.id, me ? state.me.name : m.name),
      h('div', { class: 'person-main' },
        h('div', { class: 'person-name' }, me ? `${state.me.name} (you)` : m.name,
          trustOf.get(m.id) === 'verified' ? h('span', { class: 'verified', 'aria-label': 'verified' }, ' ✓') : null,
          list.admin === m.id ? h('span', { class: 'tag' }, 'admin') : null),
        me ? null : h('div', { class: `presence ${isOnline(m.id) ? 'online' : ''}` }, presenceText(m.id))));
  };
  const leave = async () => {
    const ok = await confirmDialog(
      'Leave this group? It stays on this computer, read-only, and you get no new messages.', 'Leave', 'Leave group');
    if (!ok) return;
    try {
      await api('leave', { conversation: conversationId });
      dlg.close();
      if (close) close();
    } catch (e) { toast(e.message); }
  };
  const body = h('div', { class: 'dialog-body' },
    h('ul', { class: 'people-list', role: 'list', 'aria-label': 'Members' }, list.members.map(row)),
    list.former && list.former.length
      ? [h('h3', null, 'Former members'), h('ul', { class: 'people-list former', role: 'list' }, list.former.map(row))]
      : null,
    list.includesMe && isGroup(summary)
      ? h('div', { class: 'dialog-actions' }, h('button', { type: 'button', class: 'danger', onclick: leave }, 'Leave group'))
      : !list.includesMe ? h('p', { class: 'hint' }, 'You are no longer a member.') : null);
  const dlg = modal(`Members of ${convName(summary)}`, body, { className: 'members' });
}

export async function settingsDialog() {
  let typing = state.typingEnabled;
  try { typing = (await api('typing_setting')).typingIndicators; } catch { /* show what we knew */ }
  const typingBox = h('input', { type: 'checkbox', id: 'set-typing', checked: typing });
  const notifyBox = h('input', { type: 'checkbox', id: 'set-notify', checked: notificationsOn(), disabled: !notificationsSupported() });
  const note = h('p', { class: 'hint', role: 'status' });
  typingBox.addEventListener('change', async () => {
    try {
      state.typingEnabled = (await api('typing_setting', { value: typingBox.checked })).typingIndicators;
      emit('typing-setting');
    } catch (e) {
      typingBox.checked = !typingBox.checked;
      toast(e.message);
    }
  });
  notifyBox.addEventListener('change', async () => {
    const on = await setNotifications(notifyBox.checked);
    notifyBox.checked = on;
    note.textContent = notifyBox.checked || on ? '' : Notification.permission === 'denied'
      ? 'The browser blocks notifications for this page; allow them in its site settings.' : '';
  });
  modal('Settings', h('div', { class: 'dialog-body' },
    h('div', { class: 'switch-row' }, typingBox, h('label', { for: 'set-typing' }, 'Show and share typing')),
    h('p', { class: 'hint' }, 'Others see when you type, and you see when they do.'),
    h('div', { class: 'switch-row' }, notifyBox, h('label', { for: 'set-notify' }, 'Browser notifications')),
    h('p', { class: 'hint' }, notificationsSupported()
      ? 'A notice for new messages while this tab is hidden or another conversation is open. Muted conversations stay quiet unless you are mentioned.'
      : 'This browser has no notifications.'),
    note,
    state.me ? h('div', { class: 'whoami' }, h('h3', null, 'This computer'),
      h('p', null, state.me.name), h('p', { class: 'fingerprint' }, fingerprint(state.me.id))) : null),
  { className: 'settings' });
}
