// Your devices: this person's machines as the node's device list has them (the `devices`
// operation), and removing one, from the machine that holds the person key. A device's name
// was chosen on another machine: it is only ever text here.
import { api } from './api.js';
import { h, toast, replaceKeepingFocus } from './dom.js';
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
      list.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, `Could not read your devices: ${e.message}`));
      return;
    }
    show();
  };
  const show = () => {
    const next = h('div', null,
      listing.removed ? h('p', { class: 'warning', role: 'alert' }, listing.removed.message) : null,
      h('ul', { class: 'people-list', role: 'list', 'aria-label': 'Your devices' },
        listing.devices.map((d) => deviceItem(d, listing.canRemove, remove))),
      h('p', { class: 'hint' }, listing.canRemove
        ? 'Link another machine with “confab devices link” here, then “confab init --link CODE” there.'
        : 'Machines are linked and removed on the one that holds your person key.'));
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
