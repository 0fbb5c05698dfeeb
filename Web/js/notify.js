// Browser notifications for messages that arrive while the person looks elsewhere.
import { state, findSummary } from './state.js';
import { convName } from './model.js';

const KEY = 'confab.notifications';

// The setting as this page last read or wrote it: storage and the permission are asked of
// the browser's own process, too slow to ask on every message while one is being drawn.
let chosen = null;
const choice = () => {
  if (chosen === null) chosen = localStorage.getItem(KEY) === 'on';
  return chosen;
};
window.addEventListener('storage', (e) => { if (e.key === KEY || e.key === null) chosen = null; });

export const notificationsSupported = () => 'Notification' in window;
export const notificationsOn = () => notificationsSupported() && choice() && Notification.permission === 'granted';

/** Turns them on (asking the browser) or off; answers whether they are on now. */
export async function setNotifications(on) {
  if (!on || !notificationsSupported()) {
    localStorage.setItem(KEY, 'off');
    chosen = false;
    return false;
  }
  let permission = Notification.permission;
  if (permission === 'default') permission = await Notification.requestPermission();
  localStorage.setItem(KEY, permission === 'granted' ? 'on' : 'off');
  chosen = permission === 'granted';
  return chosen;
}

/** `m` is a normalised message from a `message` event; `open` opens its conversation. */
export function maybeNotify(m, open) {
  if (m.mine || m.system) return;
  const looking = document.visibilityState === 'visible' && state.openId === m.conversation;
  if (looking || !notificationsOn()) return;
  const summary = findSummary(m.conversation);
  if (summary && summary.isMuted && !m.mentionsMe) return;
  const where = summary ? convName(summary) : '';
  const title = summary && summary.participants.length > 1 || (summary && summary.title)
    ? `${m.authorName} in ${where}` : m.authorName;
  const body = m.deleted ? '' : m.file ? `📎 ${m.file.name || 'File'}` : (m.text || '');
  try {
    const n = new Notification(title, { body: body.slice(0, 200), tag: m.key });
    n.onclick = () => { window.focus(); open(m.conversation); n.close(); };
  } catch {
    // Some browsers only show notifications from a service worker; stay quiet there.
  }
}
