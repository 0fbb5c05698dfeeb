// A conversation's members: who is in it, who was; adding people, removing them (the admin
// only) and leaving.
import { api } from './api.js';
import { h, add, toast, errorLine } from './dom.js';
import { avatar } from './format.js';
import { convName, isGroup } from './model.js';
import { state, isOnline, loadSummary } from './state.js';
import { modal, confirmDialog, presenceText, knownPeers } from './dialogs.js';

/**
 * Opens the panel. `changed()` runs after a change made here (the header reads the members
 * again); `left()` after leaving. Answers `{ id, refresh }` while it is open, so the chat
 * can redraw it when a change of members arrives as an event, or null if it could not open.
 */
export async function membersDialog(conversationId, { changed = () => {}, left = () => {} } = {}) {
  let list;
  let summary;
  const read = async () => {
    [list, summary] = await Promise.all([api('members', { conversation: conversationId }), loadSummary(conversationId)]);
  };
  try {
    await read();
  } catch (e) {
    toast(`Could not read the members: ${e.message}`);
    return null;
  }
  const body = h('div', { class: 'dialog-body' });
  let dlg = null;
  let adding = false;   // the "Add people" list is open
  let picked = new Set();
  let history = false;

  const me = (id) => Boolean(state.me && id === state.me.id);
  const isAdmin = () => Boolean(state.me && list.admin === state.me.id);

  const remove = async (m) => {
    const ok = await confirmDialog(
      `Remove ${m.name} from this group? They keep what they have, and read nothing written from now on.`,
      'Remove', 'Remove member');
    if (!ok) return;
    try {
      await api('change_members', { conversation: conversationId, remove: [m.id] });
      changed();
      await refresh();
    } catch (e) { toast(e.message); }
  };

  const row = (m, current) => {
    const mine = me(m.id);
    const removable = current && !mine && list.includesMe && isAdmin() && isGroup(summary);
    return h('li', { class: 'person' },
      avatar(m.id, mine ? state.me.name : m.name),
      h('div', { class: 'person-main' },
        h('div', { class: 'person-name' }, mine ? `${state.me.name} (you)` : m.name,
          trustOf(m.id) === 'verified' ? h('span', { class: 'verified', 'aria-label': 'verified' }, ' ✓') : null,
          list.admin === m.id ? h('span', { class: 'tag' }, 'admin') : null),
        mine ? null : h('div', { class: `presence ${isOnline(m.id) ? 'online' : ''}` }, presenceText(m.id))),
      removable
        ? h('div', { class: 'person-actions' }, h('button', {
          type: 'button', class: 'danger', 'aria-label': `Remove ${m.name}`, dataset: { focus: `remove:${m.id}` },
          onclick: () => remove(m),
        }, 'Remove'))
        : null);
  };
  const trustOf = (id) => (summary.participants.find((p) => p.id === id) || {}).trust;

  // Known peers who are not members, ticked and added in one change.
  const addSection = async () => {
    let peers;
    try {
      peers = await knownPeers();
    } catch (e) {
      return errorLine(`Could not read the known peers: ${e.message}`);
    }
    const inside = new Set(list.members.map((m) => m.id));
    const candidates = peers.filter((p) => !inside.has(p.id) && !me(p.id));
    if (!candidates.length) return h('p', { class: 'hint' }, 'Everyone you know is already here.');
    const boxes = candidates.map((p) => h('input', {
      type: 'checkbox', value: p.id, 'aria-label': p.name, checked: picked.has(p.id), disabled: p.trust === 'blocked',
      onchange: (e) => { if (e.target.checked) picked.add(p.id); else picked.delete(p.id); },
    }));
    const withHistory = h('input', {
      type: 'checkbox', id: 'add-history', checked: history, onchange: (e) => { history = e.target.checked; },
    });
    const error = errorLine();
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Add');
    const form = h('form', { class: 'add-people', novalidate: true },
      h('fieldset', null, h('legend', null, 'People to add'),
        h('ul', { class: 'pick-list', role: 'list' }, candidates.map((p, i) => h('li', null,
          h('label', { class: 'pick' }, boxes[i], avatar(p.id, p.name, 'small'),
            h('span', { class: 'pick-name' }, p.name),
            h('span', { class: `presence ${isOnline(p.id) ? 'online' : ''}` },
              p.trust === 'blocked' ? 'blocked' : presenceText(p.id, p.lastSeenAt))))))),
      h('label', { class: 'switch-row' }, withHistory, "Let them read the conversation's history too"),
      h('p', { class: 'hint' }, 'Otherwise they read only what is written from now on.'),
      error,
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', onclick: () => { adding = false; draw(); } }, 'Cancel'), submit));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const chosen = [...picked].filter((id) => candidates.some((p) => p.id === id));
      if (!chosen.length) { error.textContent = 'Choose at least one person.'; return; }
      submit.disabled = true;
      error.textContent = '';
      try {
        const params = { conversation: conversationId, add: chosen };
        if (history) params.history = true;
        await api('change_members', params);
        adding = false;
        picked = new Set();
        history = false;
        changed();
        await refresh();
      } catch (err) {
        submit.disabled = false;
        error.textContent = err.message;
        toast(err.message);
      }
    });
    return form;
  };

  const leave = async () => {
    const ok = await confirmDialog(
      'Leave this group? It stays on this computer, read-only, and you get no new messages.', 'Leave', 'Leave group');
    if (!ok) return;
    try {
      await api('leave', { conversation: conversationId });
      dlg.close();
      left();
    } catch (e) { toast(e.message); }
  };

  let drawing = 0;
  const draw = async () => {
    const turn = ++drawing;
    const hadFocus = body.contains(document.activeElement);
    const focusTag = hadFocus && document.activeElement.dataset.focus;
    const member = list.includesMe && !summary.keyProblem;
    const toggle = member ? h('button', {
      type: 'button', 'aria-expanded': String(adding), dataset: { focus: 'add' },
      onclick: () => { adding = !adding; draw(); },
    }, 'Add people') : null;
    const adder = member && adding ? await addSection() : null;
    if (turn !== drawing) return;
    body.replaceChildren();
    add(body, [
      h('ul', { class: 'people-list', role: 'list', 'aria-label': 'Members' }, list.members.map((m) => row(m, true))),
      list.former && list.former.length
        ? [h('h3', null, 'Former members'), h('ul', { class: 'people-list former', role: 'list' }, list.former.map((m) => row(m, false)))]
        : null,
      member
        ? h('div', { class: 'dialog-actions members-actions' }, toggle,
          isGroup(summary) ? h('button', { type: 'button', class: 'danger', onclick: leave }, 'Leave group') : null)
        : !list.includesMe ? h('p', { class: 'hint' }, 'You are no longer a member.') : null,
      adder]);
    // Focus stays where it was, or goes to the toggle when what had it is gone (a dialog
    // over this one, a confirmation, keeps it).
    if (dlg && hadFocus && !body.contains(document.activeElement)) {
      const again = focusTag && body.querySelector(`[data-focus="${CSS.escape(focusTag)}"]`);
      if (again) again.focus();
      else if (adding && adder) (adder.querySelector('input:not(:disabled)') || toggle).focus();
      else if (toggle) toggle.focus();
    }
  };

  const refresh = async () => {
    if (!dlg || !dlg.open) return;
    try {
      await read();
    } catch (e) {
      toast(`Could not read the members: ${e.message}`);
      return;
    }
    await draw();
  };

  await draw();
  const handle = { id: conversationId, refresh };
  dlg = modal(`Members of ${convName(summary)}`, body, { className: 'members', onClose: () => { handle.closed = true; } });
  return handle;
}
