// The People dialog: known peers, their presence and trust; verify with the safety number, block.
import { api } from './api.js';
import { h, toast, errorLine } from './dom.js';
import { avatar, fingerprint } from './format.js';
import { summaryFrom } from './model.js';
import { state, isOnline, emit } from './state.js';
import { modal, confirmDialog, presenceText, knownPeers, newConversationDialog } from './dialogs.js';

export async function peopleDialog(open) {
  const body = h('div', null, h('p', { class: 'hint' }, 'Loading…'));
  const dlg = modal('People', h('div', { class: 'dialog-body' }, body, addByKey(() => draw()), networkCheck()), { className: 'people' });
  const draw = async () => {
    let peers;
    try {
      peers = await knownPeers();
    } catch (e) {
      body.replaceChildren(errorLine(`Could not read the known peers: ${e.message}`));
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
          devicesLine(presence),
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

/** A person's machines when their signed device list names more than one (Protocol.md §8.1). */
function devicesLine(presence) {
  const devices = presence && presence.devices;
  if (!devices || devices.length < 2) return null;
  const each = devices.map((d) => `${d.name || 'first device'}${d.online ? ' (online)' : ''}`);
  return h('div', { class: 'devices' }, `${devices.length} devices: ${each.join(', ')}`);
}

async function openPeer(open, peerId) {
  try {
    const all = (await api('conversations', { filter: 'all' })).map(summaryFrom);
    const existing = all.find((c) => !c.title && c.participants.length === 1 && c.participants[0].id === peerId);
    if (existing) { open(existing.id); return; }
  } catch { /* fall through to a new conversation */ }
  newConversationDialog(open, peerId);
}

/** Adds a peer by the key they read out from their Settings or “confab whoami”. */
function addByKey(added) {
  const key = h('input', { type: 'text', id: 'add-key', autocomplete: 'off', spellcheck: 'false', placeholder: '64 hex characters' });
  const name = h('input', { type: 'text', id: 'add-name', autocomplete: 'off', maxlength: '64' });
  const error = errorLine();
  const add = h('button', { type: 'submit' }, 'Add');
  const form = h('form', { class: 'add-by-key', novalidate: true },
    h('h3', null, 'Add by key'),
    h('p', { class: 'hint' }, 'For someone your node cannot find on the network: their key is in their Settings, or “confab whoami”.'),
    h('label', { for: 'add-key' }, 'Key'), key,
    h('label', { for: 'add-name' }, 'Name'), name,
    error,
    h('div', { class: 'dialog-actions' }, add));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const peer = key.value.replace(/\s+/g, '').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(peer)) { error.textContent = 'A key is 64 hex characters.'; key.focus(); return; }
    if (!name.value.trim()) { error.textContent = 'Give them a name.'; name.focus(); return; }
    add.disabled = true;
    error.textContent = '';
    try {
      const p = await api('add_peer', { peer, name: name.value.trim() });
      key.value = '';
      name.value = '';
      toast(`Added ${p.name}`);
      emit('trust');
      await added();
    } catch (err) {
      error.textContent = err.message;
    } finally {
      add.disabled = false;
    }
  });
  return form;
}

const SEVERITY = { ok: '✓', info: 'ℹ', warning: '⚠', problem: '✗' };

/** `confab doctor`, run by the node: what stands between it and its peers, and what to try. */
function networkCheck() {
  const out = h('div', { class: 'doctor', role: 'status', 'aria-live': 'polite' });
  const run = h('button', { type: 'button' }, 'Check network');
  run.addEventListener('click', async () => {
    run.disabled = true;
    out.replaceChildren(h('p', { class: 'hint' }, 'Checking… (a few seconds)'));
    try {
      const r = await api('doctor');
      out.replaceChildren(
        h('p', { class: `doctor-verdict ${r.ok ? 'ok' : 'problem'}` }, r.ok
          ? 'Your node reaches peers.' : 'Your node reaches no peer yet. What was found:'),
        h('ul', { class: 'findings', role: 'list', 'aria-label': 'Findings' }, r.findings.map((f) => h('li', { class: `finding ${f.severity}` },
          h('span', { class: 'finding-mark', 'aria-hidden': 'true' }, SEVERITY[f.severity] || '•'),
          h('div', null, h('p', null, f.message),
            f.advice.length ? h('ul', { class: 'advice' }, f.advice.map((a) => h('li', null, a))) : null)))),
        h('p', { class: 'hint' }, `Network tag ${r.networkTag} · checked in ${r.elapsed.toFixed(1)} s`));
    } catch (e) {
      out.replaceChildren(errorLine(`Could not check: ${e.message}`));
    } finally {
      run.disabled = false;
    }
  });
  return h('section', { class: 'network-check' }, h('h3', null, 'Network'),
    h('p', { class: 'hint' }, 'Someone missing? Check what stands between your node and its peers (as “confab doctor” does).'),
    run, out);
}
