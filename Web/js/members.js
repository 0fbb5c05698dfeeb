// A conversation's members: who is in it, who was, and leaving.
import { api } from './api.js';
import { h, toast } from './dom.js';
import { avatar } from './format.js';
import { convName, isGroup } from './model.js';
import { state, isOnline, loadSummary } from './state.js';
import { modal, confirmDialog, presenceText } from './dialogs.js';

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
