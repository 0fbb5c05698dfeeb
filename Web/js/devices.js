// Your devices: this person's machines as the node's device list has them (the `devices`
// operation), and linking or removing one, from the machine that holds the person key. A
// device's name was chosen on another machine: it is only ever text here.
import { api } from './api.js';
import { h, toast, replaceKeepingFocus, errorLine } from './dom.js';
import { fingerprint, lastSeen, plural, smartTime } from './format.js';
import { state, on, loadPresence } from './state.js';
import { modal, confirmDialog } from './dialogs.js';

function presence(d) {
  const p = state.presence.get(d.id);
  if (d.thisDevice) return 'online';
  if (p && p.online) return 'online';
  return d.lastSeen ? lastSeen(d.lastSeen) : 'not met from here yet';
}

function deviceItem(d, canRemove, remove) {
  const name = d.name || 'unnamed device';
  return h('li', { class: 'person device', dataset: { id: d.id } },
    h('div', { class: 'person-main' },
      h('div', { class: 'person-name' }, name,
        d.thisDevice ? [' ', h('span', { class: 'tag' }, 'this device')] : null),
      h('div', { class: `presence ${presence(d) === 'online' ? 'online' : ''}` }, presence(d)),
      h('div', { class: 'fingerprint' }, h('span', { class: 'sr-only' }, 'Fingerprint '), fingerprint(d.id)),
      h('div', { class: 'hint' }, d.personKey ? 'Holds your person key: links and removes the others'
        : `Linked ${smartTime(d.addedAt)}`)),
    canRemove && !d.personKey
      ? h('div', { class: 'person-actions' },
        h('button', {
          type: 'button', class: 'danger', 'aria-label': `Remove ${name}`, dataset: { focus: `remove:${d.id}` },
          onclick: () => remove(d, name),
        }, 'Remove'))
      : null);
}

export async function devicesDialog() {
  let list = h('div', null, h('p', { class: 'hint' }, 'Loading…'));
  const outcome = h('p', { class: 'hint device-outcome', role: 'status' });
  let listing = null;
  let remove;
  // Who is online changes while the dialog is open: the list follows.
  const stop = on('presence', () => { if (listing) show(); });
  modal('Your devices', h('div', { class: 'dialog-body' }, list, outcome), { className: 'devices', onClose: stop });
  const draw = async () => {
    try {
      [listing] = await Promise.all([api('devices'), loadPresence().catch(() => {})]);
    } catch (e) {
      list.replaceChildren(errorLine(`Could not read your devices: ${e.message}`));
      return;
    }
    show();
  };
  const show = () => {
    const next = h('div', null,
      listing.removed ? h('p', { class: 'warning', role: 'alert' }, listing.removed.message) : null,
      h('ul', { class: 'people-list', role: 'list', 'aria-label': 'Your devices' },
        listing.devices.map((d) => deviceItem(d, listing.canRemove, remove))),
      listing.canRemove
        ? h('button', { type: 'button', class: 'primary', dataset: { focus: 'link' }, onclick: () => linkDialog(draw) },
          'Link a new machine')
        : h('p', { class: 'hint' }, 'Machines are linked and removed on the one that holds your person key.'));
    replaceKeepingFocus(list, next);
    list = next;
  };
  remove = async (d, name) => {
    const ok = await confirmDialog(
      `Remove ${name} from your devices? It reads nothing written from now on, and what it writes is refused everywhere. ` +
      'It cannot be added back: link it anew to use it again.',
      'Remove', 'Remove device');
    if (!ok) return;
    outcome.textContent = `Removing ${name}…`;
    try {
      const r = await api('remove_device', { device: d.id });
      const groups = r.notRekeyed.length
        ? ` ${plural(r.notRekeyed.length, 'large group', 'large groups')} move to a new key only when their admin next changes its members.`
        : '';
      outcome.textContent = `Removed ${r.name}. ${plural(r.rekeyed.length, 'conversation', 'conversations')} moved to a new key it does not get.${groups}`;
    } catch (e) {
      outcome.textContent = '';
      toast(e.message);
    }
    await draw();
  };
  await draw();
}

// A QR code as SVG: the node sends its modules as rows of 0 and 1, drawn as one path.
function qrCode(rows, label) {
  const el = (tag, attrs) => {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  };
  const n = rows.length + 8;
  let d = '';
  rows.forEach((row, y) => [...row].forEach((m, x) => { if (m > 0) d += `M${x} ${y}h1v1h-1z`; }));
  const svg = el('svg', { class: 'qr', viewBox: `-4 -4 ${n} ${n}`, role: 'img', 'aria-label': label });
  svg.append(el('path', { d }));
  return svg;
}

// The offer lives in the node (`link_offer`): this shows its code and answers its words, and
// ends it when closed, or when the tab goes, so no code outlives the dialog.
async function linkDialog(done) {
  const body = h('div', { class: 'dialog-body link' }, h('p', { class: 'hint' }, 'Opening an offer…'));
  let offer, timer, over, closed;
  const cancel = () => offer && !over && api('link_cancel', { id: offer.id }, { keepalive: true }).catch(() => {});
  const end = (text, linked) => {
    over = true;
    clearInterval(timer);
    body.replaceChildren(linked ? h('p', { role: 'status' }, text) : errorLine(text));
    if (linked) done();
  };
  const stop = on('link', (l) => {
    if (!offer || l.id !== offer.id) return;
    if (l.state === 'linked') end(`Linked ${l.name}: it is one of your devices now.`, true);
    else if (l.state === 'failed') end(l.message[0].toUpperCase() + l.message.slice(1) + (/link/.test(l.message) ? '' : ': nothing was linked'));
    else words(l);
  });
  addEventListener('pagehide', cancel);
  modal('Link a new machine', body, {
    className: 'link', onClose: () => { stop(); clearInterval(timer); removeEventListener('pagehide', cancel); cancel(); closed = true; },
  });
  const answer = (yes) => {
    body.replaceChildren(h('p', { role: 'status' }, yes ? 'Waiting for the other machine…' : 'Refusing…'));
    api('link_confirm', { id: offer.id, yes }).catch((e) => end(e.message));
  };
  const words = (l) => {
    clearInterval(timer);
    body.replaceChildren(
      h('p', null, `“${l.name}” (${fingerprint(l.device)}) asks to be linked. Does the other machine show these words?`),
      h('p', { class: 'link-words' }, l.words.join(' ')),
      h('div', { class: 'dialog-actions' },
        h('button', { type: 'button', onclick: () => answer(false) }, 'No'),
        h('button', { type: 'button', class: 'primary', onclick: () => answer(true) }, 'Yes, they match')));
    body.querySelector('button').focus();
  };
  try {
    offer = await api('link_offer');
  } catch (e) {
    end(`Could not open an offer: ${e.message}`);
    return;
  }
  if (closed) return cancel();
  const left = h('p', { class: 'hint', role: 'timer' });
  const tick = () => {
    const s = Math.max(0, Math.round((new Date(offer.expiresAt) - Date.now()) / 1000));
    left.textContent = `Valid for ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}, for one machine.`;
  };
  tick();
  timer = setInterval(tick, 1000);
  body.replaceChildren(
    h('p', { class: 'link-code', 'aria-label': 'Link code' }, offer.code),
    qrCode(offer.qr, `QR code of ${offer.command}`), left,
    h('p', null, 'On the new machine run ', h('code', { class: 'cmd' }, offer.command.split(' ').map((w, i) => [i ? ' ' : '', h('span', null, w)])),
      ', or type the code at the first run of confab or of its web app. Both machines then show five words.'));
}
