// Times, names and text as the chat draws them. English words, fixed so every
// browser shows the same thing.
import { h } from './dom.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function toDate(value) {
  if (value instanceof Date) return value;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

const pad = (n) => String(n).padStart(2, '0');
export const clock = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;

function startOfDay(d) { return new Date(d.getFullYear(), d.getMonth(), d.getDate()); }
/** Whole calendar days from `d` to today (0 today, 1 yesterday). */
function daysAgo(d, now = new Date()) {
  return Math.round((startOfDay(now) - startOfDay(d)) / 86400000);
}
export const sameDay = (a, b) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();

function monthDay(d, now = new Date()) {
  const s = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
  return d.getFullYear() === now.getFullYear() ? s : `${s}, ${d.getFullYear()}`;
}

/** The list's time: HH:MM today, "Yesterday", a weekday within 6 days, else "Oct 15". */
export function smartTime(value) {
  const d = toDate(value);
  const ago = daysAgo(d);
  if (ago <= 0) return clock(d);
  if (ago === 1) return 'Yesterday';
  if (ago < 7) return DAYS[d.getDay()].slice(0, 3);
  return monthDay(d);
}

/** A date separator: "Today", "Yesterday", "Monday, Oct 15". */
export function dayLabel(value) {
  const d = toDate(value);
  const ago = daysAgo(d);
  if (ago === 0) return 'Today';
  if (ago === 1) return 'Yesterday';
  return `${DAYS[d.getDay()]}, ${monthDay(d)}`;
}

export function lastSeen(value) {
  if (!value) return 'offline';
  const d = toDate(value);
  const ago = daysAgo(d);
  if (ago <= 0) return `last seen today at ${clock(d)}`;
  if (ago === 1) return `last seen yesterday at ${clock(d)}`;
  return `last seen ${monthDay(d)}`;
}

export function fullTime(value) {
  const d = toDate(value);
  return `${DAYS[d.getDay()]}, ${monthDay(d)} ${d.getFullYear()} ${clock(d)}`;
}

export function initials(name) {
  const words = String(name || '?').trim().split(/\s+/).filter(Boolean);
  const first = (w) => Array.from(w)[0] || '';
  const text = words.length > 1 ? first(words[0]) + first(words[1]) : Array.from(words[0] || '?').slice(0, 2).join('');
  return text.toUpperCase();
}

/** One of 10 avatar colours (classes av-0 … av-9), the same for an id everywhere. */
export function colorClass(id) {
  let n = 0;
  for (const ch of String(id || '')) n = (n * 31 + ch.charCodeAt(0)) >>> 0;
  return `av-${n % 10}`;
}

export function avatar(id, name, extra = '') {
  return h('span', { class: `avatar ${colorClass(id)} ${extra}`, 'aria-hidden': 'true' }, initials(name));
}

export function fileSize(bytes) {
  // Decimal units, as the terminal shows them.
  let v = Number(bytes) || 0;
  if (v < 1000) return `${v} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let i = -1;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** The first 16 hex digits of a key in groups of 4, as people compare them. */
export const fingerprint = (id) => (String(id).slice(0, 16).match(/.{1,4}/g) || []).join(' ');

export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export function listNames(names) {
  if (names.length <= 1) return names[0] || '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

// Only http(s) links, and not the punctuation a sentence puts after them.
const URL_RE = /\bhttps?:\/\/[^\s<>"]+/gi;
function trimUrl(url) {
  let u = url;
  while (/[.,;:!?'")\]}]$/.test(u)) {
    if (u.endsWith(')') && (u.match(/\(/g) || []).length >= (u.match(/\)/g) || []).length) break;
    u = u.slice(0, -1);
  }
  return u;
}

/** Message text as DOM: links for http(s) URLs, highlighted @mentions, the rest plain text. */
export function richText(text, mentions = []) {
  const frag = document.createDocumentFragment();
  const names = mentions.map((m) => `@${m.name}`).filter((n) => n.length > 1).sort((a, b) => b.length - a.length);
  const plain = (s) => {
    if (!names.length) { frag.append(s); return; }
    let rest = s;
    while (rest) {
      let best = -1;
      let hit = '';
      for (const n of names) {
        const i = rest.indexOf(n);
        if (i >= 0 && (best < 0 || i < best)) { best = i; hit = n; }
      }
      if (best < 0) { frag.append(rest); break; }
      if (best > 0) frag.append(rest.slice(0, best));
      frag.append(h('span', { class: 'mention' }, hit));
      rest = rest.slice(best + hit.length);
    }
  };
  let last = 0;
  for (const match of String(text).matchAll(URL_RE)) {
    const url = trimUrl(match[0]);
    if (match.index > last) plain(text.slice(last, match.index));
    frag.append(h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url));
    last = match.index + url.length;
  }
  if (last < text.length) plain(text.slice(last));
  return frag;
}

/** A search snippet: «…» marks become <mark>, built as nodes. */
export function snippet(text) {
  const frag = document.createDocumentFragment();
  const parts = String(text).split(/([«»])/);
  let inMark = false;
  for (const part of parts) {
    if (part === '«') { inMark = true; continue; }
    if (part === '»') { inMark = false; continue; }
    if (part) frag.append(inMark ? h('mark', null, part) : part);
  }
  return frag;
}
