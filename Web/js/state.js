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
export const on = (name, fn) => bus.addEventListener(name, (e) => fn(e.detail));
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
/**
 * Reads the list. With `first`, its first rows are read and shown before the whole list is
 * asked for: a long list shows its top while the rest is read (asked at once, the two reads
 * share the node, and the first rows came 100 ms later on a 2-core machine). An answer older
 * than one already shown is dropped.
 */
export async function loadConversations(first = 0) {
  const read = ++listReads;
  const filter = state.filter;
  const show = (list) => {
    if (read < listShown) return;
    listShown = read;
    state.conversations = list.map(summaryFrom);
    emit('conversations');
  };
  if (first) {
    const rows = await api('conversations', { filter, limit: first });
    show(rows);
    if (read < listShown || rows.length < first) return;
  }
  show(await api('conversations', { filter }));
}

/** One conversation's row, whether or not the list in view holds it. */
export async function loadSummary(id) {
  return summaryFrom(await api('conversation', { conversation: id }));
}
