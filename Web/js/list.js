// The sidebar: the conversation list, search results, and each row's menu.
import { api } from './api.js';
import { h, toast, debounce } from './dom.js';
import { avatar, smartTime, snippet, plural } from './format.js';
import { convName, faceId, summaryFrom, fromServer } from './model.js';
import { state, on, emit, loadConversations, refreshConversations } from './state.js';
import { openMenu } from './menu.js';
import { confirmDialog } from './dialogs.js';

let area;        // where the list or the search results go
let searchBox;
let archivedBtn;
let nav;         // { open(id, target?) }
let query = '';

export function initList(navigation) {
  nav = navigation;
  area = document.getElementById('list-area');
  searchBox = document.getElementById('search');
  archivedBtn = document.getElementById('archived-btn');
  on('conversations', () => { if (!query) drawList(); });
  on('open', () => markCurrent());
  searchBox.addEventListener('input', debounce(() => runSearch(searchBox.value), 200));
  searchBox.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && searchBox.value) { e.preventDefault(); searchBox.value = ''; runSearch(''); }
  });
  archivedBtn.addEventListener('click', async () => {
    state.filter = state.filter === 'inbox' ? 'archived' : 'inbox';
    archivedBtn.setAttribute('aria-pressed', String(state.filter === 'archived'));
    await refreshList();
  });
}

/** `first`: show that many rows as soon as they are read, before the whole list. */
export async function refreshList(first = 0) {
  try {
    await loadConversations(first);
  } catch (e) {
    if (e.status === 401) return;
    if (!query) area.replaceChildren(h('p', { class: 'list-error', role: 'alert' }, `Could not load conversations: ${e.message}`));
  }
}
/** After an event: the top of the list read again (state.js says why not all of it). */
export const refreshListSoon = debounce(async () => {
  try {
    await refreshConversations();
  } catch (e) {
    if (e.status !== 401 && !query) area.replaceChildren(h('p', { class: 'list-error', role: 'alert' }, `Could not load conversations: ${e.message}`));
  }
}, 100);

function previewText(s) {
  const m = s.lastMessage;
  if (!m) return 'No messages yet';
  return `${m.isMine ? 'You: ' : ''}${m.text}`;
}

function unreadText(s) {
  if (s.unreadCount > 0) return plural(s.unreadCount, 'unread message', 'unread messages');
  return s.isMarkedUnread ? 'marked unread' : '';
}

function rowFor(s) {
  const name = convName(s);
  const label = [name, previewText(s), unreadText(s)].filter(Boolean).join(', ');
  const main = h('button', {
    type: 'button', class: 'row-main', 'aria-label': label, dataset: { focus: 'main' },
    'aria-current': s.id === state.openId ? 'true' : null,
    onclick: () => nav.open(s.id),
  },
  avatar(faceId(s), name),
  h('span', { class: 'row-text' },
    h('span', { class: 'row-top' },
      h('span', { class: 'row-name' }, s.title ? h('span', { class: 'hash', 'aria-hidden': 'true' }, '#') : null, name),
      s.isMuted ? h('span', { class: 'mark', title: 'Muted', 'aria-hidden': 'true' }, '🔕') : null,
      s.isPinned ? h('span', { class: 'mark', title: 'Pinned', 'aria-hidden': 'true' }, '📌') : null,
      h('span', { class: 'row-time' }, s.lastMessage ? smartTime(s.lastMessage.sentAt) : smartTime(s.lastActivityAt))),
    h('span', { class: 'row-bottom' },
      h('span', { class: 'row-preview' }, previewText(s)),
      s.unreadCount > 0
        ? h('span', { class: `badge ${s.isMuted ? 'muted' : ''}`, 'aria-hidden': 'true' }, s.unreadCount > 999 ? '999+' : String(s.unreadCount))
        : s.isMarkedUnread ? h('span', { class: 'dot', 'aria-hidden': 'true' }) : null)));
  const more = h('button', {
    type: 'button', class: 'row-more icon-btn', 'aria-label': 'Conversation options', 'aria-haspopup': 'menu',
    'aria-expanded': 'false', dataset: { focus: 'more' },
  }, '⋮');
  more.addEventListener('click', () => rowMenu(s, more));
  return h('li', { class: `row ${s.id === state.openId ? 'current' : ''}`, dataset: { id: s.id } }, main, more);
}

function rowMenu(s, trigger) {
  const flag = (name, value) => async () => {
    try {
      await api('set_flag', { conversation: s.id, flag: name, value });
      if (name === 'markedUnread') emit('marked-unread', s.id);
      refreshListSoon();
    } catch (e) { toast(e.message); }
  };
  const unread = s.unreadCount > 0 || s.isMarkedUnread;
  openMenu(trigger, [
    { label: s.isPinned ? 'Unpin' : 'Pin', onSelect: flag('pinned', !s.isPinned) },
    { label: s.isArchived ? 'Unarchive' : 'Archive', onSelect: flag('archived', !s.isArchived) },
    unread
      ? { label: 'Mark as read', onSelect: async () => {
        try { await api('mark_read', { conversation: s.id }); refreshListSoon(); } catch (e) { toast(e.message); }
      } }
      : { label: 'Mark as unread', onSelect: flag('markedUnread', true) },
    { label: s.isMuted ? 'Unmute' : 'Mute', onSelect: flag('muted', !s.isMuted) },
    { label: 'Delete', danger: true, onSelect: () => deleteConversation(s.id) },
  ], {
    label: 'Conversation options',
    returnFocus: () => area.querySelector(`li[data-id="${CSS.escape(s.id)}"] .row-more`),
  });
}

export async function deleteConversation(id) {
  const ok = await confirmDialog('Delete this conversation from this computer? Messages stay with the others.', 'Delete', 'Delete conversation');
  if (!ok) return;
  try {
    await api('delete', { conversation: id });
    if (state.openId === id) nav.close();
    refreshListSoon();
  } catch (e) { toast(e.message); }
}

// Rows read and drawn at once: more than a tall screen holds (24 rows of 62 px fill
// 1,488 px), and each row more the node encodes before the first paint costs it about
// 0.45 ms on a 2-core machine. The rest follow after the first frame, a batch a task, so a
// list of 1,000 shows as soon as its first rows are built.
export const FIRST_ROWS = 24;
const MORE_ROWS = 200;
let drawing = 0;
// The rows drawn last, by conversation: one whose summary, time and place are the same is
// kept rather than built again (a refresh after a message changes a row or two of 1,000).
let drawnRows = new Map();

function rowOf(s, rows, before) {
  const key = `${JSON.stringify(s)}|${s.lastMessage ? smartTime(s.lastMessage.sentAt) : smartTime(s.lastActivityAt)}|${s.id === state.openId}`;
  const kept = before.get(s.id);
  const li = kept && kept.key === key ? kept.li : rowFor(s);
  rows.set(s.id, { key, li });
  return li;
}

// Redraws the whole list; a refresh must not steal the person's place, so the
// focused control is found again in its new row.
function drawList() {
  const focused = area.contains(document.activeElement) ? document.activeElement : null;
  const focusId = focused && focused.closest('li') && focused.closest('li').dataset.id;
  const focusPart = focused && focused.dataset.focus;
  const list = state.conversations;
  const at = focusId ? list.findIndex((s) => s.id === focusId) : -1;
  let drawn = Math.max(FIRST_ROWS, at + 1);
  const before = drawnRows;
  const rows = drawnRows = new Map();
  const row = (s) => rowOf(s, rows, before);
  const ul = h('ul', { role: 'list', 'aria-label': 'Conversations', class: 'conv-list' }, list.slice(0, drawn).map(row));
  const pass = ++drawing;
  const more = () => {
    if (pass !== drawing || !ul.isConnected || drawn >= list.length) return;
    ul.append(...list.slice(drawn, drawn + MORE_ROWS).map(row));
    drawn += MORE_ROWS;
    setTimeout(more, 0);
  };
  if (drawn < list.length) requestAnimationFrame(() => setTimeout(more, 0));
  if (!list.length) {
    area.replaceChildren(ul, state.filter === 'archived'
      ? h('div', { class: 'list-empty' }, h('p', null, 'No archived conversations'))
      : h('div', { class: 'list-empty' }, h('p', null, 'No conversations yet'), h('p', { class: 'hint' }, 'Press New conversation to start one')));
  } else {
    area.replaceChildren(ul);
  }
  if (focusId && focusPart) {
    const again = ul.querySelector(`li[data-id="${CSS.escape(focusId)}"] [data-focus="${focusPart}"]`);
    if (again) again.focus();
  }
  updateTitle();
}

// Only the row that was current and the one that is now: a list of 1,000 is not walked.
function markCurrent() {
  const id = state.openId;
  const now = id ? [...area.querySelectorAll(`li.row[data-id="${CSS.escape(id)}"]`)] : [];
  for (const li of [...area.querySelectorAll('li.row.current'), ...now]) {
    const current = li.dataset.id === id;
    li.classList.toggle('current', current);
    const main = li.querySelector('.row-main');
    if (main) {
      if (current) main.setAttribute('aria-current', 'true'); else main.removeAttribute('aria-current');
    }
  }
}

function updateTitle() {
  if (state.filter !== 'inbox') return;
  const unread = state.conversations.filter((c) => !c.isMuted).reduce((n, c) => n + c.unreadCount, 0);
  document.title = unread ? `(${unread}) Confab` : 'Confab';
}

let searchToken = 0;
async function runSearch(text) {
  query = text.trim();
  const token = ++searchToken;
  if (!query) { drawList(); return; }
  let hits;
  try {
    hits = await api('search', { query, limit: 50 });
  } catch (e) {
    if (token === searchToken) area.replaceChildren(h('p', { class: 'list-error', role: 'alert' }, `Search failed: ${e.message}`));
    return;
  }
  if (token !== searchToken) return;
  if (!hits.length) {
    area.replaceChildren(h('p', { class: 'list-empty', role: 'status' }, `Nothing found for “${query}”`));
    return;
  }
  const items = hits.map((hit) => {
    const s = summaryFrom(hit.conversation);
    const name = convName(s);
    if (!hit.message) {
      return h('li', { class: 'row hit' }, h('button', {
        type: 'button', class: 'row-main', 'aria-label': `${name}, conversation`, onclick: () => nav.open(s.id),
      }, avatar(faceId(s), name), h('span', { class: 'row-text' },
        h('span', { class: 'row-top' }, h('span', { class: 'row-name' }, s.title ? h('span', { class: 'hash', 'aria-hidden': 'true' }, '#') : null, name)),
        h('span', { class: 'row-bottom' }, h('span', { class: 'row-preview' }, 'Conversation')))));
    }
    const m = fromServer(hit.message);
    const text = hit.snippet || m.text || '';
    return h('li', { class: 'row hit' }, h('button', {
      type: 'button', class: 'row-main',
      'aria-label': `${name}, ${m.mine ? 'You' : m.authorName}: ${text.replace(/[«»]/g, '')}`,
      onclick: () => nav.open(s.id, { author: m.author, seq: m.seq }),
    }, avatar(faceId(s), name), h('span', { class: 'row-text' },
      h('span', { class: 'row-top' }, h('span', { class: 'row-name' }, name), h('span', { class: 'row-time' }, smartTime(m.sentAt))),
      h('span', { class: 'row-bottom' }, h('span', { class: 'row-preview snippet' },
        `${m.mine ? 'You' : m.authorName}: `, snippet(text))))));
  });
  area.replaceChildren(h('ul', { role: 'list', 'aria-label': 'Search results', class: 'conv-list' }, items));
}
