// Settings: typing, notifications, this computer's name and key, and your devices.
import { api } from './api.js';
import { h, toast, errorLine } from './dom.js';
import { fingerprint } from './format.js';
import { state, emit } from './state.js';
import { modal } from './dialogs.js';
import { notificationsOn, notificationsSupported, setNotifications } from './notify.js';
import { devicesDialog } from './devices.js';

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
    state.me ? whoami() : null,
    h('section', { class: 'your-devices' },
      h('h3', null, 'Your devices'),
      h('p', { class: 'hint' }, 'The machines you use Confab on: when each was last here, and removing a lost one.'),
      h('button', { type: 'button', onclick: () => devicesDialog() }, 'Show devices'))),
  { className: 'settings' });
}

/** This computer: the name others see (editable), its key to read out, and its network. */
function whoami() {
  const name = h('input', { type: 'text', id: 'set-name', value: state.me.name, maxlength: '64', autocomplete: 'off' });
  const save = h('button', { type: 'submit' }, 'Save');
  const note = errorLine();
  const form = h('form', { class: 'whoami', novalidate: true },
    h('h3', null, 'This computer'),
    h('label', { for: 'set-name' }, 'Display name'),
    h('div', { class: 'inline-field' }, name, save),
    h('p', { class: 'hint' }, 'What others see. People you talk to now see it within seconds.'),
    note,
    h('p', null, h('span', { class: 'sr-only' }, 'Fingerprint '), h('span', { class: 'fingerprint' }, fingerprint(state.me.id))),
    h('p', { class: 'hint' }, 'Your key, for someone adding you by hand: ', h('code', { class: 'key' }, state.me.id)),
    state.status && state.status.networkTag
      ? h('p', { class: 'hint' }, `Network tag ${state.status.networkTag}: peers see you only when theirs is the same.`)
      : null);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    note.textContent = '';
    save.disabled = true;
    try {
      const r = await api('set_name', { name: name.value });
      name.value = r.name;
      state.me = { ...state.me, name: r.name };
      emit('status');
      toast(`You are now ${r.name}`);
    } catch (err) {
      note.textContent = err.message;
    } finally {
      save.disabled = false;
    }
  });
  return form;
}
