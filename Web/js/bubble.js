// One message of the log as DOM. Everything a peer wrote goes in as text nodes.
import { h } from './dom.js';
import { clock, colorClass, dayLabel, fileSize, fullTime, richText, sameDay } from './format.js';
import { STATUS_TEXT, STATUS_TICKS } from './model.js';

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;
// Up to three emoji and nothing else is drawn large, as messengers do.
const EMOJI_ONLY = /^(?:\p{Extended_Pictographic}(?:\uFE0F|\u200D\p{Extended_Pictographic}|\p{Emoji_Modifier})*\s*){1,3}$/u;

export const fileURL = (f) => `/api/v1/files/${encodeURIComponent(f.id)}`;

function quoteText(r) {
  if (r.deleted) return 'This message was deleted';
  if (r.missing) return 'a message not held here';
  return r.text ?? 'This message could not be decrypted';
}

function fileState(f) {
  switch (f.state) {
    case 'complete': return '';
    case 'fetching': return `receiving ${f.size ? Math.floor((f.held / f.size) * 100) : 0}%`;
    case 'waiting': return 'waiting for you to accept';
    case 'failed': return f.problem ? `failed: ${f.problem}` : 'failed';
    case 'unreadable': return 'cannot be read';
    case 'deleted': return 'deleted';
    default: return f.state || '';
  }
}

const percent = (held, size) => (size > 0 ? Math.max(0, Math.min(100, Math.floor((held / size) * 100))) : 100);

/**
 * For my file: how far each recipient got, as their nodes said — "✓ Bob, Carol" for those
 * who hold it whole, a bar for each still fetching. Nothing until one has said anything.
 */
function recipientsBlock(m, ctx) {
  const list = m.mine && ctx.recipients ? ctx.recipients(m) : [];
  if (!list.length) return null;
  const done = list.filter((r) => r.complete);
  const going = list.filter((r) => !r.complete);
  return h('ul', { class: 'file-recipients', 'aria-label': 'Recipients' },
    done.length ? h('li', { class: 'done' }, `✓ ${done.map((r) => r.name).join(', ')}`) : null,
    going.map((r) => {
      const p = percent(r.held, m.file.size);
      return h('li', { class: 'going' },
        h('span', { class: 'who' }, r.name),
        h('progress', { max: '100', value: p, 'aria-label': `${r.name} has ${p}%` }),
        h('span', { class: 'pct', 'aria-hidden': 'true' }, `${p}%`));
    }));
}

function fileBlock(m, ctx) {
  return [fileItself(m, ctx), recipientsBlock(m, ctx)];
}

function fileItself(m, ctx) {
  const f = m.file;
  const name = f.name || 'file';
  const url = fileURL(f);
  const details = [fileSize(f.size), fileState(f)].filter(Boolean).join(' · ');
  if (IMAGE_TYPES.test(f.mediaType) && f.state === 'complete') {
    return h('figure', { class: 'file image' },
      h('img', { src: url, alt: name, loading: 'lazy', width: f.width || null, height: f.height || null }),
      h('figcaption', null, h('a', { href: url, download: name }, name), ` · ${details}`));
  }
  const moving = f.state === 'fetching' || f.state === 'waiting';
  return h('div', { class: `file state-${f.state}` },
    h('span', { class: 'file-icon', 'aria-hidden': 'true' }, f.state === 'complete' ? '📄' : '⏳'),
    h('div', { class: 'file-info' },
      f.state === 'complete' ? h('a', { href: url, download: name, class: 'file-name' }, name) : h('span', { class: 'file-name' }, name),
      h('span', { class: 'file-meta' }, details),
      moving && f.size > 0 ? h('progress', { max: String(f.size), value: Math.min(f.held, f.size), 'aria-label': `${name} received` }) : null),
    f.state === 'waiting' && !m.mine
      ? h('button', { type: 'button', class: 'accept', dataset: { focus: 'accept' }, onclick: () => ctx.onAccept(f) }, 'Accept')
      : null);
}

function content(m, ctx) {
  if (m.deleted) return h('div', { class: 'text deleted' }, 'This message was deleted');
  if (m.file) return fileBlock(m, ctx);
  if (m.text == null) return h('div', { class: 'text deleted' }, 'This message could not be decrypted');
  const big = EMOJI_ONLY.test(m.text.trim());
  // The text names me by my own name, which the mention list may give as "You".
  const mentions = m.mentionsMe && ctx.myName ? [...m.mentions, { name: ctx.myName }] : m.mentions;
  return h('div', { class: `text ${big ? 'jumbo' : ''}` }, richText(m.text, mentions));
}

function meta(m) {
  const status = m.status || (m.pending ? 'sending' : null);
  return h('div', { class: 'meta' },
    m.editedAt && !m.deleted ? h('span', { class: 'edited' }, 'edited') : null,
    h('time', { datetime: m.sentAt.toISOString(), title: fullTime(m.sentAt) }, clock(m.sentAt)),
    m.mine && status ? [
      h('span', { class: 'status' }, STATUS_TEXT[status] || status),
      h('span', { class: `ticks ${status}`, 'aria-hidden': 'true' }, STATUS_TICKS[status] || ''),
    ] : null);
}

function reactionsRow(m, ctx) {
  if (!m.reactions.length || m.deleted) return null;
  return h('div', { class: 'reactions' }, m.reactions.map((r) => h('button', {
    type: 'button', class: `reaction ${r.mine ? 'mine' : ''}`, 'aria-pressed': String(r.mine),
    'aria-label': `${r.emoji} ${r.count}: ${r.names.join(', ')}`, title: r.names.join(', '),
    dataset: { focus: `r:${r.emoji}` }, disabled: ctx.readOnly,
    onclick: () => ctx.onReact(m, r.emoji, r.mine),
  }, h('span', { class: 'emoji' }, r.emoji), ` ${r.count}`)));
}

/** `prev` is the message before it in display order (for the date line and the author name). */
export function renderItem(m, prev, ctx) {
  const newDay = !prev || !sameDay(prev.sentAt, m.sentAt);
  const item = h('div', { class: 'item', dataset: { key: m.key } },
    newDay ? h('div', { class: 'day' }, h('span', null, dayLabel(m.sentAt))) : null);
  if (m.system) {
    item.append(h('div', { class: 'system' }, m.system));
    return item;
  }
  const firstOfRun = newDay || !prev || prev.author !== m.author || Boolean(prev.system);
  const showAuthor = ctx.group && !m.mine && firstOfRun;
  const bubble = h('div', { class: 'bubble' },
    showAuthor ? h('div', { class: `author ${colorClass(m.author)}` }, m.authorName) : h('span', { class: 'sr-only' }, `${m.mine ? 'You' : m.authorName}: `),
    m.replyTo && !m.deleted ? h('button', {
      type: 'button', class: 'quote', dataset: { focus: 'quote' },
      'aria-label': `Replying to ${m.replyTo.authorName}: ${quoteText(m.replyTo)}`, title: 'Show the message it replies to',
      onclick: () => ctx.onJump(m.replyTo),
    }, h('span', { class: 'quote-author' }, m.replyTo.authorName), h('span', { class: 'quote-text' }, quoteText(m.replyTo))) : null,
    content(m, ctx),
    meta(m));
  const options = m.pending ? null : h('button', {
    type: 'button', class: 'msg-options icon-btn', 'aria-label': 'Message options', 'aria-haspopup': 'menu',
    'aria-expanded': 'false', dataset: { focus: 'opt' },
  }, '⌄');
  if (options) options.addEventListener('click', () => ctx.onOptions(m, options));
  item.append(h('div', { class: `msg ${m.mine ? 'mine' : 'theirs'} ${firstOfRun ? 'first' : ''} ${m.pending ? 'pending' : ''}` },
    h('div', { class: 'msg-line' }, bubble, options),
    reactionsRow(m, ctx)));
  return item;
}
