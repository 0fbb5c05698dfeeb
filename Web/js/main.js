// Starts the app: first reads, the event stream, and which conversation the address names.
import { api, EventStream, setSignedOutHandler } from './api.js';
import { h, debounce } from './dom.js';
import { plural, initials, colorClass } from './format.js';
import { fromServer } from './model.js';
import { state, on, loadStatus, loadPresence, emit } from './state.js';
import { initList, refreshList, refreshListSoon, FIRST_ROWS } from './list.js';
import {
  initChat, openConversation, closeConversation, catchUp, onNewMessage, onChangedMessage, onStatus, onFile,
  onFilePeer, onChanged, onTyping, clearTyping,
} from './chat.js';
import { newConversationDialog } from './dialogs.js';
import { peopleDialog } from './people.js';
import { settingsDialog } from './settings.js';
import { maybeNotify } from './notify.js';
import { closeMenu, menuIsOpen } from './menu.js';

// The address names the open conversation (#/c/<id>), so reload and Back work.
function parseHash() {
  const m = /^#\/c\/([0-9a-f]{32})$/.exec(location.hash);
  return m ? m[1] : null;
}

const nav = {
  open(id, target = null) {
    const hash = `#/c/${id}`;
    if (location.hash !== hash) history.pushState(null, '', hash);
    openConversation(id, target);
  },
  close() {
    if (location.hash) history.pushState(null, '', location.pathname);
    closeConversation();
  },
};

function route() {
  const id = parseHash();
  if (id) openConversation(id); else closeConversation();
}

function showSignedOut() {
  document.getElementById('app').hidden = true;
  document.getElementById('reconnecting').hidden = true;
  document.querySelectorAll('dialog').forEach((d) => d.remove());
  document.body.append(h('main', { class: 'signed-out', role: 'alert' },
    h('h1', null, 'Confab'),
    h('p', null, 'Signed out — run ', h('code', null, 'confab open'), ' in a terminal to sign in again.')));
}

function drawBanner(error) {
  const banner = document.getElementById('net-banner');
  if (error) {
    banner.className = 'net-banner offline';
    banner.textContent = `Cannot reach the node: ${error}`;
    return;
  }
  const sessions = (state.status && state.status.sessions) || [];
  banner.className = `net-banner ${sessions.length ? 'online' : 'offline'}`;
  banner.textContent = sessions.length
    ? `${plural(sessions.length, 'peer', 'peers')} online`
    : 'Offline — messages will be sent when a peer is reachable';
}

function drawMe() {
  if (!state.me) return;
  const face = document.getElementById('me-avatar');
  face.className = `avatar small ${colorClass(state.me.id)}`;
  face.textContent = initials(state.me.name);
  document.getElementById('me-name').textContent = state.me.name;
}

const refreshStatus = async () => {
  try {
    await loadStatus();
  } catch (e) {
    if (e.status !== 401) drawBanner(e.message);
  }
};
const refreshStatusSoon = debounce(refreshStatus, 150);

function onEvent(ev) {
  switch (ev.event) {
    case 'message': {
      const m = fromServer(ev.message);
      onTyping({ conversation: m.conversation, author: m.author, active: false });
      onNewMessage(ev);
      maybeNotify(m, (id) => nav.open(id));
      refreshListSoon();
      break;
    }
    case 'members':
      onNewMessage(ev);
      refreshListSoon();
      break;
    case 'edited':
    case 'deleted':
    case 'reaction':
      onChangedMessage(ev);
      refreshListSoon();
      break;
    case 'status':
      onStatus(ev);
      refreshListSoon();
      break;
    case 'file':
      onFile(ev);
      break;
    case 'file_peer':
      onFilePeer(ev);
      break;
    case 'changed':
      onChanged(ev);
      refreshListSoon();
      break;
    case 'typing':
      onTyping(ev);
      break;
    case 'peer_online':
    case 'peer_offline':
      if (ev.peer) { state.presence.set(ev.peer.id, ev.peer); emit('presence'); }
      refreshStatusSoon();
      break;
    case 'link':
      emit('link', ev.link);
      break;
    default:
      break;   // events added later: nothing to draw yet
  }
}

function startEvents() {
  const notice = document.getElementById('reconnecting');
  const stream = new EventStream({
    onEvent,
    onReady(again) {
      notice.hidden = true;
      if (again) {
        // Whatever happened while the socket was down: read it all again.
        refreshList();
        refreshStatus();
        loadPresence().catch(() => {});
        catchUp();
      }
    },
    onDown() {
      notice.hidden = false;
      clearTyping();
    },
  });
  stream.start();
}

async function boot() {
  setSignedOutHandler(showSignedOut);
  initList(nav);
  initChat(nav);
  on('status', () => { drawBanner(); drawMe(); });
  document.getElementById('new-btn').addEventListener('click', () => newConversationDialog((id) => nav.open(id)));
  document.getElementById('people-btn').addEventListener('click', () => peopleDialog((id) => nav.open(id)));
  document.getElementById('settings-btn').addEventListener('click', () => settingsDialog());
  window.addEventListener('popstate', route);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && menuIsOpen()) closeMenu();
  });
  startEvents();
  await Promise.all([
    refreshStatus(),
    refreshList(FIRST_ROWS),
    loadPresence().catch(() => {}),
    api('typing_setting').then((r) => { state.typingEnabled = r.typingIndicators; }).catch(() => {}),
  ]);
  route();
}

boot();
