// The open conversation: its header, the message log (a window of at most WINDOW nodes
// over the messages read so far) and the composer.
import { api } from './api.js';
import { h, add, toast, debounce, replaceKeepingFocus } from './dom.js';
import { avatar, lastSeen, listNames, plural } from './format.js';
import { compareOrder, convName, faceId, fromServer, fileFrom, isGroup, msgKey } from './model.js';
import { state, on, emit, findSummary, isOnline, loadSummary } from './state.js';
import { renderItem } from './bubble.js';
import { Composer } from './composer.js';
import { Uploader } from './upload.js';
import { openMenu } from './menu.js';
import { confirmDialog } from './dialogs.js';
import { membersDialog } from './members.js';
import { refreshListSoon, deleteConversation } from './list.js';

const WINDOW = 200;   // message nodes kept in the page at most
const STEP = 50;      // nodes added or dropped at a time while scrolling
const PAGE = 60;      // messages per history request
const EMOJI = ['👍', '❤️', '😂', '😮', '😢', '🙏'];
const RANK = { sending: 0, sent: 1, delivered: 2, read: 3 };

const els = {};
let composer;
let nav;
let view = null;      // the open conversation's state; replaced on each open
let pendingCount = 0;
let membersPanel = null;   // the open Members panel: { id, refresh, closed }
// How far the recipients of my files got, as their nodes said (file_peer events), by
// conversation/seq → Map(recipient → { held, complete }). No operation reads this back, so
// it is what came while the page was open, kept across conversations.
const fileRecipients = new Map();

export function initChat(navigation) {
  nav = navigation;
  for (const id of ['chat-empty', 'chat-view', 'chat-name', 'chat-sub', 'chat-avatar', 'log', 'new-below', 'members-btn', 'back-btn', 'chat-more', 'composer']) {
    els[id.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
  composer = new Composer(els.composer, {
    send: sendText,
    edit: editText,
    typing: (value) => {
      if (!view || !state.typingEnabled) return;
      api('typing', { conversation: view.id, value }).catch(() => {});
    },
    members: () => (view && view.members) || [],
    editLast: () => {
      const m = view && [...view.msgs].reverse().find((x) => x.mine && !x.pending && !x.deleted && !x.system && !x.file && x.text != null);
      if (m) composer.startEdit(m);
      return Boolean(m);
    },
  });
  // Files: the Attach button beside the message box, and drops anywhere on the chat.
  const tray = h('ul', { class: 'upload-tray', 'aria-label': 'Files being sent', hidden: true });
  const uploader = new Uploader(tray, () => (view && !composer.box.disabled ? view.id : null));
  composer.form.prepend(uploader.picker, uploader.button);
  composer.form.before(tray);
  uploader.acceptDrops(els.chatView);
  els.log.addEventListener('scroll', () => { if (!scrollQueued) { scrollQueued = true; requestAnimationFrame(onScroll); } }, { passive: true });
  // A picture that finishes loading pushes the newest message down.
  els.log.addEventListener('load', () => { if (view && view.stick) scrollToBottom(); }, true);
  els.newBelow.addEventListener('click', jumpToBottom);
  els.membersBtn.addEventListener('click', async () => {
    if (!view) return;
    const id = view.id;
    const again = () => { if (view && view.id === id) { loadMembers(); refreshHeader(); } };
    membersPanel = await membersDialog(id, { changed: again, left: again });
  });
  els.backBtn.addEventListener('click', () => nav.close());
  els.chatMore.addEventListener('click', () => view && conversationMenu());
  document.addEventListener('visibilitychange', () => markReadSoon());
  on('status', drawHeader);
  on('presence', drawHeader);
  // Only the line that says it: a message ends a typing, and drawing the whole header then
  // would hold up the message's own bubble.
  on('typing', (conversation) => { if (view && view.id === conversation) drawPresence(); });
  on('conversations', () => {
    if (!view) return;
    const s = findSummary(view.id);
    if (s) { view.summary = s; drawHeader(); composerState(); }
    markReadSoon();
  });
  on('marked-unread', (id) => { if (view && view.id === id) view.keepUnread = true; });
  on('trust', () => refreshHeader());
}

export function closeConversation() {
  view = null;
  state.openId = null;
  els.chatView.hidden = true;
  els.chatEmpty.hidden = false;
  document.body.classList.remove('show-chat');
  composer.setConversation(null);
  emit('open');
}

/** `target` ({ author, seq }) opens the page around that message and shows it. */
export async function openConversation(id, target = null) {
  if (view && view.id === id) {
    if (target) jumpTo(target);
    document.body.classList.add('show-chat');
    return;
  }
  const v = {
    id, summary: findSummary(id), msgs: [], nodes: new Map(), hasOlder: false, start: 0, end: 0,
    stick: true, newCount: 0, loadingOlder: false, members: null, earlyStatus: new Map(), keepUnread: false,
    loaded: false, gap: false, missed: false,
  };
  view = v;
  state.openId = id;
  emit('open');
  els.chatEmpty.hidden = true;
  els.chatView.hidden = false;
  document.body.classList.add('show-chat');
  els.log.replaceChildren(h('p', { class: 'log-note' }, 'Loading…'));
  els.newBelow.hidden = true;
  composer.setConversation(id, readOnlyState(v.summary));
  drawHeader();
  try {
    const [summary, page] = await Promise.all([
      loadSummary(id),
      api('history', target ? { conversation: id, around: target } : { conversation: id, limit: PAGE }),
    ]);
    if (view !== v) return;
    v.summary = summary;
    // A status event that came while the page was read is newer than what the page says.
    v.msgs = page.messages.map(fromServer).map((m) => {
      if (m.mine) m.status = laterStatus(m.status, v.earlyStatus.get(m.seq));
      return m;
    });
    v.hasOlder = page.hasOlder;
    v.gap = Boolean(target) && page.messages.length >= 5000;
    v.loaded = true;
  } catch (e) {
    if (view !== v) return;
    els.log.replaceChildren(h('p', { class: 'log-note error', role: 'alert' }, `Could not open this conversation: ${e.message}`));
    return;
  }
  drawHeader();
  composerState();
  if (target) {
    const i = indexOf(msgKey(target.author, target.seq));
    renderWindow(Math.max(0, i - 100), Math.min(v.msgs.length, Math.max(0, i - 100) + WINDOW));
    showMessage(msgKey(target.author, target.seq));
  } else {
    renderWindow(Math.max(0, v.msgs.length - 100), v.msgs.length);
    scrollToBottom();
  }
  fillIfShort();
  if (!target && matchMedia('(min-width: 700px)').matches) composer.focus();
  loadMembers();
  markReadSoon();
  // Something happened while the page was read (which may have been before it): read again.
  if (v.missed && !v.gap) catchUp();
}

function readOnlyState(s) {
  if (!s) return {};
  if (s.isFormerMember) return { readOnly: true, reason: 'You are no longer a member of this conversation.' };
  if (s.keyProblem) return { readOnly: true, reason: 'This conversation cannot be read on this computer (its key did not open).' };
  return {};
}
function composerState() { if (view) { const r = readOnlyState(view.summary); composer.setReadOnly(Boolean(r.readOnly), r.reason || ''); } }

async function loadMembers() {
  const v = view;
  try {
    const list = await api('members', { conversation: v.id });
    if (view === v) v.members = list.members.filter((m) => !state.me || m.id !== state.me.id);
  } catch { /* mentions just offer nobody */ }
}

async function refreshHeader() {
  const v = view;
  if (!v) return;
  try {
    const s = await loadSummary(v.id);
    if (view === v) { v.summary = s; drawHeader(); composerState(); }
  } catch (e) {
    if (view === v && e.status && e.status !== 401) { toast('This conversation is no longer on this computer.'); nav.close(); }
  }
}

// ---- header ----------------------------------------------------------------------

function drawHeader() {
  if (!view) return;
  const s = view.summary;
  const name = s ? convName(s) : '';
  const parts = s ? s.participants : [];
  const verifiedOne = parts.length === 1 && parts[0].trust === 'verified';
  els.chatName.replaceChildren(s && s.title ? h('span', { class: 'hash', 'aria-hidden': 'true' }, '#') : '', name,
    verifiedOne ? h('span', { class: 'verified', title: 'Verified', 'aria-label': 'verified' }, ' ✓') : '');
  const face = avatar(faceId(s), name);
  face.id = 'chat-avatar';
  els.chatAvatar.replaceWith(face);
  els.chatAvatar = face;
  drawPresence();
}

/** The header's second line: who is typing, else online or last seen; a group's members. */
function drawPresence() {
  if (!view) return;
  const s = view.summary;
  const parts = s ? s.participants : [];
  const typing = [...(state.typing.get(view.id) || new Map()).values()];
  let presence;
  if (typing.length) {
    presence = h('span', { class: 'typing' },
      typing.length === 1 ? `${typing[0]} is typing…` : typing.length === 2 ? `${typing[0]} and ${typing[1]} are typing…` : `${typing.length} people are typing…`);
  } else if (parts.some((p) => isOnline(p.id))) {
    presence = h('span', { class: 'online' }, 'online');
  } else {
    const seen = parts.map((p) => state.presence.get(p.id)).map((p) => p && p.lastSeen).filter(Boolean).sort().pop();
    presence = h('span', null, lastSeen(seen));
  }
  const group = isGroup(s);
  els.chatSub.replaceChildren(presence);
  if (group) {
    add(els.chatSub, [' · ', h('span', { class: 'participants' },
      parts.map((p, i) => [i ? ', ' : '', p.name, p.trust === 'verified' ? h('span', { class: 'verified', 'aria-label': 'verified' }, ' ✓') : '']))]);
  }
}

function conversationMenu() {
  const s = view.summary;
  if (!s) return;
  const flag = (flagName, value) => async () => {
    try { await api('set_flag', { conversation: s.id, flag: flagName, value }); refreshListSoon(); refreshHeader(); } catch (e) { toast(e.message); }
  };
  openMenu(els.chatMore, [
    { label: s.isPinned ? 'Unpin' : 'Pin', onSelect: flag('pinned', !s.isPinned) },
    { label: s.isArchived ? 'Unarchive' : 'Archive', onSelect: flag('archived', !s.isArchived) },
    { label: s.isMuted ? 'Unmute' : 'Mute', onSelect: flag('muted', !s.isMuted) },
    { label: 'Delete', danger: true, onSelect: () => deleteConversation(s.id) },
  ], { label: 'Conversation options' });
}

// ---- the log window --------------------------------------------------------------

// Statuses only move on; a read that left before a status event must not undo it.
const laterStatus = (a, b) => (!a ? b : !b ? a : RANK[b] > RANK[a] ? b : a);
function merge(old, m) {
  Object.assign(old, m, { orderKey: m.orderKey || old.orderKey, status: laterStatus(old.status, m.status) });
}

// What a bubble shows: a message read again that looks the same is not redrawn.
const looks = (m) => JSON.stringify([m.text, m.status, m.editedAt, m.deleted, m.reactions, m.file, m.replyTo, m.system]);

const indexOf = (key) => (view ? view.msgs.findIndex((m) => m.key === key) : -1);

function ctx() {
  const readOnly = Boolean(view.summary && (view.summary.isFormerMember || view.summary.keyProblem));
  return {
    group: isGroup(view.summary), readOnly, myName: state.me && state.me.name, recipients,
    onOptions: messageMenu, onReact: react, onJump: jumpTo, onAccept: acceptFile,
  };
}

/** My file's recipients as their nodes reported them: [{ id, name, held, complete }] by name. */
function recipients(m) {
  const by = m.mine && m.file ? fileRecipients.get(`${m.conversation}/${m.seq}`) : null;
  if (!by) return [];
  const names = new Map(((view && view.summary && view.summary.participants) || []).map((p) => [p.id, p.name]));
  return [...by].map(([id, r]) => ({
    id, held: r.held, complete: r.complete,
    name: names.get(id) || (state.presence.get(id) || {}).name || 'Someone',
  })).sort((a, b) => a.name.localeCompare(b.name));
}

function nodeAt(i, c = ctx()) {
  const m = view.msgs[i];
  const el = renderItem(m, view.msgs[i - 1] || null, c);
  view.nodes.set(m.key, el);
  return el;
}

function topNote() {
  const v = view;
  if (v.start > 0 || v.hasOlder) return h('p', { class: 'log-note top' }, v.loadingOlder ? 'Loading older messages…' : '');
  if (!v.msgs.length) return null;
  return h('p', { class: 'log-note top' }, 'This is the beginning of the conversation.');
}

function renderWindow(start, end) {
  const v = view;
  v.nodes.clear();
  v.start = start;
  v.end = end;
  if (!v.msgs.length) {
    const names = v.summary ? v.summary.participants.map((p) => p.name) : [];
    els.log.replaceChildren(h('div', { class: 'log-empty' }, h('p', null, `Say hi to ${listNames(names) || 'them'}`)));
    return;
  }
  const c = ctx();
  const nodes = [];
  for (let i = start; i < end; i++) nodes.push(nodeAt(i, c));
  els.log.replaceChildren(...[topNote()].filter(Boolean), ...nodes);
}

function redrawTopNote() {
  const old = els.log.querySelector('.log-note.top');
  const fresh = topNote();
  if (old && fresh) old.replaceWith(fresh);
  else if (old) old.remove();
  else if (fresh) els.log.prepend(fresh);
}

/** Redraws one message in place if it is in the window. */
function redraw(i) {
  const m = view.msgs[i];
  if (!m || i < view.start || i >= view.end) return;
  const old = view.nodes.get(m.key);
  const fresh = nodeAt(i);
  if (old && old.isConnected) replaceKeepingFocus(old, fresh);
}

// Keeps what the person looks at in place while nodes come and go above it.
function keepingPlace(change) {
  const log = els.log;
  const top = log.getBoundingClientRect().top;
  let anchorKey = null;
  let y = 0;
  for (const el of log.children) {
    const r = el.getBoundingClientRect();
    if (el.dataset.key && r.bottom > top) { anchorKey = el.dataset.key; y = r.top; break; }
  }
  change();
  const anchor = anchorKey && view.nodes.get(anchorKey);
  if (anchor && anchor.isConnected) log.scrollTop += anchor.getBoundingClientRect().top - y;
}

function dropNode(key) {
  const el = view.nodes.get(key);
  if (el) el.remove();
  view.nodes.delete(key);
}

function showEarlier() {
  const v = view;
  const from = Math.max(0, v.start - STEP);
  if (from === v.start) return;
  keepingPlace(() => {
    const first = els.log.querySelector('.item');
    const c = ctx();
    const nodes = [];
    for (let i = from; i < v.start; i++) nodes.push(nodeAt(i, c));
    if (first) first.before(...nodes); else els.log.append(...nodes);
    const oldStart = v.start;
    v.start = from;
    redraw(oldStart);   // its predecessor is drawn now: date line and author may go
    while (v.end - v.start > WINDOW) dropNode(v.msgs[--v.end].key);
    redrawTopNote();
  });
}

function showLater() {
  const v = view;
  const to = Math.min(v.msgs.length, v.end + STEP);
  if (to === v.end) return;
  keepingPlace(() => {
    const c = ctx();
    const nodes = [];
    for (let i = v.end; i < to; i++) nodes.push(nodeAt(i, c));
    els.log.append(...nodes);
    v.end = to;
    while (v.end - v.start > WINDOW) dropNode(v.msgs[v.start++].key);
    redrawTopNote();
  });
}

async function loadOlder() {
  const v = view;
  if (v.loadingOlder || !v.hasOlder) return;
  const oldest = v.msgs.find((m) => m.orderKey);
  if (!oldest) return;
  v.loadingOlder = true;
  redrawTopNote();
  try {
    const page = await api('history', { conversation: v.id, before: oldest.orderKey, limit: PAGE });
    if (view !== v) return;
    const older = page.messages.map(fromServer).filter((m) => indexOf(m.key) < 0);
    v.msgs.unshift(...older);
    v.start += older.length;
    v.end += older.length;
    v.hasOlder = page.hasOlder && older.length > 0;
  } catch (e) {
    if (view === v) toast(`Could not load older messages: ${e.message}`);
  } finally {
    v.loadingOlder = false;
  }
  if (view !== v) return;
  redrawTopNote();
  showEarlier();
}

let scrollQueued = false;
function onScroll() {
  scrollQueued = false;
  const v = view;
  if (!v || !v.loaded) return;
  const log = els.log;
  const fromBottom = log.scrollHeight - log.scrollTop - log.clientHeight;
  v.stick = fromBottom < 48 && v.end === v.msgs.length && !v.gap;
  if (v.stick && v.newCount) { v.newCount = 0; drawNewBelow(); }
  if (log.scrollTop < 400) { if (v.start > 0) showEarlier(); else loadOlder(); }
  if (fromBottom < 400) {
    if (v.end < v.msgs.length) showLater();
    else if (v.gap) catchUp();
  }
}

// A window shorter than the pane gets no scroll events: fill it with older pages.
function fillIfShort() {
  const v = view;
  if (v && v.hasOlder && v.start === 0 && els.log.scrollHeight <= els.log.clientHeight + 10) {
    loadOlder().then(() => { if (view === v && v.hasOlder) fillIfShort(); });
  }
}

function scrollToBottom() { els.log.scrollTop = els.log.scrollHeight; }

function jumpToBottom() {
  const v = view;
  if (!v) return;
  if (v.gap) { catchUp(true); return; }
  if (v.end < v.msgs.length || v.start > Math.max(0, v.msgs.length - WINDOW)) {
    renderWindow(Math.max(0, v.msgs.length - 100), v.msgs.length);
  }
  v.stick = true;
  v.newCount = 0;
  drawNewBelow();
  scrollToBottom();
  markReadSoon();
}

function drawNewBelow() {
  const n = view ? view.newCount : 0;
  els.newBelow.hidden = n === 0;
  els.newBelow.textContent = n ? `${plural(n, 'new message', 'new messages')} ↓` : '';
}

/** Puts a message where display order says; answers whether it is drawn at the bottom. */
function insert(m) {
  const v = view;
  const msgs = v.msgs;
  let i = msgs.length;
  if (!m.pending) while (i > 0 && (msgs[i - 1].pending || compareOrder(msgs[i - 1], m) > 0)) i--;
  const showsNewest = v.end === msgs.length;
  msgs.splice(i, 0, m);
  if (msgs.length === 1) {
    renderWindow(0, 1);
    return true;
  }
  if (i < v.start || (i === v.start && v.start > 0)) { v.start++; v.end++; return false; }
  if (i > v.end || (i === v.end && !showsNewest)) return false;
  const el = nodeAt(i);
  const next = msgs[i + 1] && v.nodes.get(msgs[i + 1].key);
  const apply = () => {
    if (next && next.isConnected) next.before(el); else els.log.append(el);
    v.end++;
    redraw(i + 1);
  };
  if (v.stick) {
    apply();
    while (v.end - v.start > WINDOW) dropNode(msgs[v.start++].key);
    redrawTopNote();
    scrollToBottom();
  } else {
    keepingPlace(apply);
  }
  return i === msgs.length - 1 || msgs.slice(i + 1).every((x) => x.pending);
}

function removeAt(i) {
  const v = view;
  const [m] = v.msgs.splice(i, 1);
  if (i < v.start) { v.start--; v.end--; return; }
  if (i >= v.end) return;
  dropNode(m.key);
  v.end--;
  redraw(i);
  if (!v.msgs.length) renderWindow(0, 0);
}

function update(key, change) {
  const i = indexOf(key);
  if (i < 0) return false;
  change(view.msgs[i]);
  if (view.stick) { redraw(i); scrollToBottom(); } else keepingPlace(() => redraw(i));
  return true;
}

/** Scrolls a drawn message into the middle of the pane and marks it for a moment. */
function showMessage(key) {
  const el = view.nodes.get(key);
  if (!el) return;
  el.scrollIntoView({ block: 'center' });
  view.stick = false;
  el.classList.add('flash');
  setTimeout(() => el.classList.remove('flash'), 1600);
  const bubble = el.querySelector('.bubble, .system');
  if (bubble) { bubble.tabIndex = -1; bubble.focus({ preventScroll: true }); }
}

async function jumpTo(ref) {
  const v = view;
  const key = msgKey(ref.author, ref.seq);
  let i = indexOf(key);
  if (i < 0) {
    try {
      const page = await api('history', { conversation: v.id, around: { author: ref.author, seq: ref.seq } });
      if (view !== v) return;
      const pending = v.msgs.filter((m) => m.pending);
      v.msgs = page.messages.map(fromServer).concat(pending);
      v.hasOlder = page.hasOlder;
      v.gap = page.messages.length >= 5000;
    } catch (e) {
      toast(`That message is not here: ${e.message}`);
      return;
    }
    i = indexOf(key);
    if (i < 0) { toast('That message is not here.'); return; }
  }
  if (i < v.start || i >= v.end) {
    const start = Math.max(0, i - 100);
    renderWindow(start, Math.min(v.msgs.length, start + WINDOW));
  }
  showMessage(key);
}

/** After a reconnection or a write by another process: read the newest page again. */
export async function catchUp(toBottom = false) {
  const v = view;
  if (!v) return;
  if (!v.loaded) { v.missed = true; return; }
  let page;
  try {
    page = await api('history', { conversation: v.id, limit: PAGE });
  } catch { return; }
  if (view !== v) return;
  const fresh = page.messages.map(fromServer);
  const joins = !page.hasOlder || !fresh.length || indexOf(fresh[0].key) >= 0;
  if (!joins || v.gap) {
    // What we hold no longer meets the newest page: start again from it.
    v.msgs = fresh.concat(v.msgs.filter((m) => m.pending));
    v.hasOlder = page.hasOlder;
    v.gap = false;
    renderWindow(Math.max(0, v.msgs.length - 100), v.msgs.length);
    if (toBottom || v.stick) scrollToBottom();
    return;
  }
  for (const m of fresh) {
    const i = indexOf(m.key);
    if (i >= 0) { if (looks(v.msgs[i]) !== looks(m)) update(m.key, (old) => merge(old, m)); }
    else { adoptPending(m); insert(m); }
  }
  if (toBottom) jumpToBottom();
}

// ---- events ------------------------------------------------------------------------

// An event of the conversation being opened, before its first page is drawn: that page may
// have been read before the event, so it is read again once drawn (see openConversation).
function missedWhileOpening(conversation) {
  if (!view || view.id !== conversation || view.loaded) return false;
  view.missed = true;
  return true;
}

function adoptPending(m) {
  if (!m.mine) return;
  const i = view.msgs.findIndex((x) => x.pending && !x.adopted && x.text === m.text);
  if (i >= 0) { view.msgs[i].adopted = true; removeAt(i); }
}

/**
 * A `message` or `members` event. It carries the message's place in the display order
 * (`orderKey`), so it is drawn from the event; from a node that sends no `orderKey` the message
 * is read again, someone else's drawn from the event at once (by its time) meanwhile, and
 * moved if its order puts it elsewhere.
 */
export async function onNewMessage(ev) {
  const v = view;
  const brief = fromServer(ev.message);
  if (missedWhileOpening(brief.conversation) || !v || brief.conversation !== v.id) return;
  if (brief.orderKey) {
    const i = indexOf(brief.key);
    if (i < 0) show(v, brief);
    else if (looks(v.msgs[i]) !== looks(brief)) update(brief.key, (old) => merge(old, brief));
    return;
  }
  const early = ev.event === 'message' && !brief.mine && !brief.system && v.stick && !v.gap && indexOf(brief.key) < 0;
  if (early) show(v, brief);
  let m = brief;
  try {
    const full = await api('message', { conversation: v.id, message: { author: brief.author, seq: brief.seq } });
    if (full) m = fromServer(full);
  } catch { /* draw it from the event */ }
  if (view !== v) return;
  if (!m.system && brief.system) m.system = brief.system;
  const i = indexOf(m.key);
  if (i < 0) { show(v, m); return; }
  const msgs = v.msgs;
  const misplaced = early && ((i > 0 && !msgs[i - 1].pending && compareOrder(msgs[i - 1], m) > 0)
    || (i + 1 < msgs.length && !msgs[i + 1].pending && compareOrder(m, msgs[i + 1]) > 0));
  if (misplaced) { removeAt(i); insert(m); }
  else if (looks(msgs[i]) !== looks(m)) update(m.key, (old) => merge(old, m));
  else msgs[i].orderKey = m.orderKey || msgs[i].orderKey;
}

function show(v, m) {
  if (m.membership) {
    loadMembers();
    refreshHeader();
    if (membersPanel && !membersPanel.closed && membersPanel.id === v.id) membersPanel.refresh();
  }
  if (v.gap) { if (!m.mine) { v.newCount++; drawNewBelow(); } return; }
  adoptPending(m);
  if (m.mine) m.status = laterStatus(m.status, v.earlyStatus.get(m.seq));
  const atBottom = insert(m);
  if (!m.mine && !(atBottom && v.stick)) { v.newCount++; drawNewBelow(); }
  if (!m.mine) { v.keepUnread = false; v.arrived = true; markReadSoon(); }
}

/** `edited`, `deleted`, `reaction`: the message as it reads now, minus its order key. */
export function onChangedMessage(ev) {
  const m = fromServer(ev.message);
  if (missedWhileOpening(m.conversation) || !view || m.conversation !== view.id) return;
  update(m.key, (old) => merge(old, m));
}

export function onStatus(ev) {
  if (!view || ev.conversation !== view.id || !state.me) return;
  const key = msgKey(state.me.id, ev.seq);
  const found = update(key, (m) => { m.status = laterStatus(m.status, ev.status); });
  if (!found) view.earlyStatus.set(ev.seq, ev.status);
}

export function onFile(ev) {
  if (!ev.file || missedWhileOpening(ev.conversation) || !view || ev.conversation !== view.id) return;
  update(msgKey(ev.file.author, ev.seq), (m) => { m.file = fileFrom(ev.file); });
}

/** `file_peer`: a recipient's node holds more of one of my files. */
export function onFilePeer(ev) {
  if (!ev.conversation || ev.seq == null || !ev.by) return;
  const key = `${ev.conversation}/${ev.seq}`;
  const by = fileRecipients.get(key) || new Map();
  const old = by.get(ev.by) || { held: 0, complete: false };
  // Holdings only grow; reports of one recipient may cross on the way.
  by.set(ev.by, { held: Math.max(old.held, Number(ev.held) || 0), complete: old.complete || Boolean(ev.complete) });
  fileRecipients.set(key, by);
  if (view && view.id === ev.conversation && state.me) update(msgKey(state.me.id, ev.seq), () => {});
}

export function onChanged(ev) {
  if (!view) return;
  if (!ev.conversation || ev.conversation === view.id) { refreshHeader(); catchUpSoon(); }
}
const catchUpSoon = debounce(() => catchUp(), 150);

// ---- reading ---------------------------------------------------------------------

// The person sees the conversation: tell the others (read receipt) and clear the badge.
const markReadSoon = debounce(async () => {
  const v = view;
  if (!v || !v.loaded || document.visibilityState !== 'visible' || v.keepUnread) return;
  const s = findSummary(v.id) || v.summary;
  const unread = s && (s.unreadCount > 0 || s.isMarkedUnread);
  if (!unread && !v.arrived) return;
  v.arrived = false;
  try {
    await api('mark_read', { conversation: v.id });
    refreshListSoon();
  } catch { /* the badge stays; nothing else to do */ }
}, 300);

// ---- actions ---------------------------------------------------------------------

async function sendText(text, replyTo) {
  const v = view;
  if (!v) return;
  if (!state.me) {
    toast('Not sent: this page does not know who you are yet. Is the node running?');
    composer.restore(text);
    return;
  }
  if (v.gap || v.end < v.msgs.length) jumpToBottom();
  v.stick = true;
  const p = {
    key: `pending:${++pendingCount}`, pending: true, conversation: v.id, author: state.me.id, authorName: 'You',
    seq: null, mine: true, text, sentAt: new Date(), orderKey: null, status: 'sending', editedAt: null, deleted: false,
    replyTo: replyTo ? { author: replyTo.author, seq: replyTo.seq, authorName: replyTo.authorName, text: replyTo.text, deleted: false, missing: false } : null,
    mentions: [], mentionsMe: false, reactions: [], membership: null, system: null, file: null,
  };
  const params = { conversation: v.id, text };
  if (replyTo) params.replyTo = { author: replyTo.author, seq: replyTo.seq };
  // Asked before the bubble is drawn (drawing it waits for a layout of the log).
  const sending = api('send', params);
  insert(p);
  scrollToBottom();
  try {
    const r = await sending;
    if (view !== v) return;
    const key = msgKey(state.me.id, r.seq);
    const at = indexOf(p.key);
    if (p.adopted || indexOf(key) >= 0) { if (at >= 0) removeAt(at); return; }
    if (at < 0) return;
    // The answer came before the event: the bubble becomes the real message.
    const node = view.nodes.get(p.key);
    view.nodes.delete(p.key);
    Object.assign(p, { key, seq: r.seq, pending: false, status: laterStatus(r.status || 'sending', v.earlyStatus.get(r.seq)) });
    if (node) view.nodes.set(key, node);
    redraw(at);
  } catch (e) {
    if (e.status === 401) return;
    toast(`Not sent: ${e.message}`);
    if (view === v) {
      const at = indexOf(p.key);
      if (at >= 0) removeAt(at);
      composer.restore(text);
    }
  } finally {
    refreshListSoon();
  }
}

async function editText(m, text) {
  const v = view;
  try {
    await api('edit', { conversation: v.id, target: m.seq, text });
    if (view === v) update(m.key, (x) => { x.text = text; x.editedAt = new Date().toISOString(); });
  } catch (e) {
    toast(`Not edited: ${e.message}`);
  }
}

async function react(m, emoji, remove) {
  try {
    await api('react', { conversation: m.conversation, message: { author: m.author, seq: m.seq }, emoji, remove });
  } catch (e) { toast(e.message); }
}

async function acceptFile(f) {
  try {
    await api('accept_file', { file: f.id });
    toast(`Fetching ${f.name || 'the file'}…`, 'info');
  } catch (e) { toast(e.message); }
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Plain http on a LAN address is not a secure context: no clipboard API there.
    const area = h('textarea', { class: 'offscreen', readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  toast('Copied', 'info');
}

function messageMenu(m, trigger) {
  const readOnly = ctx().readOnly;
  const usable = !m.deleted && !m.system;
  const mineHas = (emoji) => m.reactions.some((r) => r.emoji === emoji && r.mine);
  openMenu(trigger, [
    usable && !readOnly ? {
      label: 'React',
      row: EMOJI.map((emoji) => ({
        label: emoji, ariaLabel: `${mineHas(emoji) ? 'Remove' : 'React'} ${emoji}`, className: `emoji-item ${mineHas(emoji) ? 'chosen' : ''}`,
        onSelect: () => react(m, emoji, mineHas(emoji)),
      })),
    } : null,
    usable && !readOnly ? { label: 'Reply', onSelect: () => composer.startReply(m) } : null,
    usable && !readOnly && m.mine && !m.file && m.text != null ? { label: 'Edit', onSelect: () => composer.startEdit(m) } : null,
    usable && m.text ? { label: 'Copy text', onSelect: () => copyText(m.text) } : null,
    usable && !readOnly && m.mine ? { label: 'Delete for everyone', danger: true, onSelect: () => unsend(m) } : null,
  ].filter(Boolean), {
    label: 'Message options',
    returnFocus: () => view && view.nodes.get(m.key) && view.nodes.get(m.key).querySelector('.msg-options'),
  });
}

async function unsend(m) {
  const ok = await confirmDialog('Delete this message for everyone? It is removed on every computer in the conversation.', 'Delete', 'Delete message');
  if (!ok) return;
  const v = view;
  try {
    await api('unsend', { conversation: v.id, target: m.seq });
    if (view === v) update(m.key, (x) => { x.deleted = true; x.text = null; x.reactions = []; });
  } catch (e) { toast(`Not deleted: ${e.message}`); }
}

// Typing starts and stops come as events; a lost stop must not leave "typing…" forever.
const typingTimers = new Map();
export function onTyping(ev) {
  const key = `${ev.conversation}/${ev.author}`;
  clearTimeout(typingTimers.get(key));
  const who = state.typing.get(ev.conversation) || new Map();
  if (!ev.active && !who.has(ev.author)) return;   // nothing shown to end (a message, mostly)
  if (ev.active && state.typingEnabled) {
    who.set(ev.author, ev.authorName || 'Someone');
    typingTimers.set(key, setTimeout(() => onTyping({ ...ev, active: false }), 8000));
  } else {
    who.delete(ev.author);
  }
  if (who.size) state.typing.set(ev.conversation, who); else state.typing.delete(ev.conversation);
  emit('typing', ev.conversation);
}

export function clearTyping() {
  for (const t of typingTimers.values()) clearTimeout(t);
  typingTimers.clear();
  const convs = [...state.typing.keys()];
  state.typing.clear();
  convs.forEach((c) => emit('typing', c));
}

