// The People dialog: known peers, their presence and trust; verify with the safety number, block.
import { api } from './api.js';
import { h, toast } from './dom.js';
import { avatar, fingerprint } from './format.js';
import { summaryFrom } from './model.js';
import { state, isOnline, emit } from './state.js';
import { modal, confirmDialog, presenceText, knownPeers, newConversationDialog } from './dialogs.js';

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
