// What every part of the page shares, and a bus to say it changed.
import { api } from './api.js';
import { summaryFrom } from './model.js';

export const state = {
  me: null,               // { id, name }
  status: null,           // the node's Status
  presence: new Map(),    // peer id → Presence
  conversations: [],      // the list as the server ordered it
  filter: 'inbox',        // or 'archived'
  openId: null,
  typingEnabled: true,
  typing: new Map(),      // conversation → Map(author → name)
};

const bus = new EventTarget();
/** Listens for `name`; returns what stops listening. */
export const on = (name, fn) => {
  const listener = (e) => fn(e.detail);
  bus.addEventListener(name, listener);
  return () => bus.removeEventListener(name, listener);
};
export const emit = (name, detail) => bus.dispatchEvent(new CustomEvent(name, { detail }));

export function isOnline(id) {
  return Boolean(state.status && (state.status.sessions || []).some((s) => s.peer === id));
}

export function findSummary(id) {
  return state.conversations.find((c) => c.id === id) || null;
}

export async function loadStatus() {
  state.status = await api('status');
  state.me = { id: state.status.id, name: state.status.name };
  emit('status');
}

export async function loadPresence() {
  const list = await api('peers');
  state.presence = new Map(list.map((p) => [p.id, p]));
  emit('presence');
}

let listReads = 0;
let listShown = 0;
// The rows an event's refresh reads: the top of the list, where a conversation with news
// moves to. A list no longer than this is read whole each time.
export const TOP_ROWS = 40;
// While events keep coming, the whole list is read again at most this often, for what the
// top cannot show: a row further down changed by another front end (read, muted, archived).
const WHOLE_EVERY = 60_000;
let wholeAt = 0;
let wholeSoon = null;

// Whether `a` comes before `b` in the list, as the store orders it: pinned first, then the
// latest activity, then the id.
function sortsBefore(a, b) {
  if (a.isPinned !== b.isPinned) return a.isPinned;
  const at = Date.parse(a.lastActivityAt) || 0;
  const bt = Date.parse(b.lastActivityAt) || 0;
  if (at !== bt) return at > bt;
  return a.id < b.id;
}

/**
 * Reads the list. With `first`, its first rows are read and shown before the whole list is
 * asked for: a long list shows its top while the rest is read (asked at once, the two reads
 * share the node, and the first rows came 100 ms later on a 2-core machine). An answer older
 * than one already shown is dropped.
 */
export async function loadConversations(first = 0) {
  const read = ++listReads;
  const filter = state.filter;
  const show = (list, whole) => {
    if (read < listShown) return;
    listShown = read;
    if (whole) wholeAt = performance.now();
    state.conversations = list.map(summaryFrom);
    emit('conversations');
  };
  if (first) {
    const rows = await api('conversations', { filter, limit: first });
    show(rows, rows.length < first);
    if (read < listShown || rows.length < first) return;
  }
  show(await api('conversations', { filter }), true);
}

/**
 * The list again after an event: only its top TOP_ROWS rows are read, and put in place of
 * the rows they replace; the rows below stay as they were. A heavy user's whole list is
 * 600 KiB of JSON that took the node 400 ms to write on a 2-core machine, for each open tab
 * and each message. A row that was above the top's last one and is no longer in the top
 * (unpinned, archived, deleted) has a place only the whole list tells, so then the whole
 * list is read; and so it is, at most once a minute, while events come.
 */
export async function refreshConversations() {
  const read = ++listReads;
  const filter = state.filter;
  const rows = (await api('conversations', { filter, limit: TOP_ROWS })).map(summaryFrom);
  if (read < listShown || filter !== state.filter) return;
  listShown = read;
  let lost = false;
  let list = rows;
  if (rows.length < TOP_ROWS) {
    wholeAt = performance.now();
  } else {
    const top = new Set(rows.map((s) => s.id));
    const last = rows[rows.length - 1];
    const below = state.conversations.filter((s) => !top.has(s.id));
    lost = below.some((s) => sortsBefore(s, last));
    list = rows.concat(below.filter((s) => !sortsBefore(s, last)));
  }
  state.conversations = list;
  emit('conversations');
  if (rows.length < TOP_ROWS) return;
  if (lost) { clearTimeout(wholeSoon); wholeSoon = null; }
  if (wholeSoon) return;
  const due = () => lost || performance.now() - wholeAt >= WHOLE_EVERY;
  wholeSoon = setTimeout(() => {
    wholeSoon = null;
    if (due() && filter === state.filter) loadConversations().catch(() => {});
  }, lost ? 0 : Math.max(0, wholeAt + WHOLE_EVERY - performance.now()));
}

/** One conversation's row, whether or not the list in view holds it. */
export async function loadSummary(id) {
  return summaryFrom(await api('conversation', { conversation: id }));
}
