// The server speaks two message shapes: `history`/`message`/`search` answer ChatMessage
// (isMine, conversationID, orderKey, heldBytes…), events carry the CLI's Message (mine,
// conversation, held… and no orderKey). Both become one shape here.

export const msgKey = (author, seq) => `${author}/${seq}`;

function reactionsFrom(list) {
  return (list || []).map((r) => ({
    emoji: r.emoji,
    count: r.count ?? (r.reactors || []).length,
    mine: Boolean(r.includesMe ?? r.mine),
    names: (r.reactors || []).map((p) => p.name),
  }));
}

function membershipSentence(author, m) {
  if (m.left) return `${author} left`;
  const parts = [];
  const names = (list) => {
    const n = list.map((p) => p.name);
    return n.length > 1 ? `${n.slice(0, -1).join(', ')} and ${n[n.length - 1]}` : n[0] || '';
  };
  if (m.added && m.added.length) parts.push(`added ${names(m.added)}`);
  if (m.removed && m.removed.length) parts.push(`removed ${names(m.removed)}`);
  return `${author} ${parts.join(' and ')}`;
}

/** `history` answers a ChatMessage's DeviceNote (`deviceName`), events the CLI's shape (`name`). */
function deviceSentence(person, d) {
  const fp = String(d.device || '').slice(0, 8).replace(/^(.{4})/, '$1 ');
  const name = d.deviceName ?? d.name ?? '';
  if (d.change === 'renamed') {
    return d.previousName
      ? `${person} renamed a device: ${d.previousName} → ${name} (${fp})`
      : `${person} named a device: ${name} (${fp})`;
  }
  const what = { linked: 'linked a new device', removed: 'removed a device' }[d.change] || 'changed a device';
  return `${person} ${what}: ${name} (${fp})`;
}

export function fileFrom(f) {
  if (!f) return null;
  return {
    id: f.fileID ?? f.id,
    conversation: f.conversationID ?? f.conversation,
    author: f.author,
    seq: f.seq,
    name: f.name ?? null,
    folder: f.folder || '',
    mediaType: f.mediaType || '',
    size: Number(f.size) || 0,
    held: Number(f.heldBytes ?? f.held) || 0,
    state: f.state,
    problem: f.problem ?? null,
    width: f.width || 0,
    height: f.height || 0,
  };
}

export function fromServer(m) {
  const conversation = m.conversationID ?? m.conversation;
  const mine = Boolean(m.isMine ?? m.mine);
  const deleted = Boolean(m.isDeleted ?? m.deleted);
  let replyTo = null;
  if (m.replyTo) {
    const r = m.replyTo;
    replyTo = {
      author: r.ref ? r.ref.author : r.author,
      seq: r.ref ? r.ref.seq : r.seq,
      authorName: r.authorName,
      text: r.text ?? null,
      deleted: Boolean(r.isDeleted ?? r.deleted),
      missing: r.isHeld === false || r.missing === true,
    };
  }
  const membership = m.membership || null;
  const device = m.device || null;
  return {
    key: device ? `device/${device.person}/${device.listSeq}` : msgKey(m.author, m.seq),
    conversation,
    author: m.author,
    authorName: m.authorName || '',
    seq: m.seq,
    mine,
    text: m.text ?? null,
    sentAt: new Date(m.sentAt),
    orderKey: m.orderKey || null,
    status: m.status || null,
    editedAt: m.editedAt || null,
    deleted,
    replyTo,
    mentions: m.mentions || [],
    mentionsMe: Boolean(m.mentionsMe),
    reactions: reactionsFrom(m.reactions),
    membership,
    device,
    system: membership ? (m.system || membershipSentence(m.authorName || '', membership)) : device ? (m.system || deviceSentence(m.authorName || '', device)) : null,
    file: fileFrom(m.file),
    pending: false,
  };
}

/** Display order (Protocol.md §6); a message without its key (from an event) goes by time. */
export function compareOrder(a, b) {
  const x = a.orderKey;
  const y = b.orderKey;
  if (!x || !y) return a.sentAt - b.sentAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  if (x.clockSum !== y.clockSum) return x.clockSum - y.clockSum;
  if (x.timestamp !== y.timestamp) return x.timestamp - y.timestamp;
  if (x.author !== y.author) return x.author < y.author ? -1 : 1;
  return x.seq - y.seq;
}

/** A Summary (control shape) or a Conversation (CLI shape) as the list uses it. */
export function summaryFrom(s) {
  return {
    id: s.id,
    title: s.title || null,
    participants: s.participants || [],
    lastActivityAt: s.lastActivityAt,
    lastMessage: s.lastMessage ? { ...s.lastMessage, isMine: Boolean(s.lastMessage.isMine ?? s.lastMessage.mine) } : null,
    unreadCount: s.unreadCount ?? s.unread ?? 0,
    isMarkedUnread: Boolean(s.isMarkedUnread ?? s.markedUnread),
    isPinned: Boolean(s.isPinned ?? s.pinned),
    isArchived: Boolean(s.isArchived ?? s.archived),
    isMuted: Boolean(s.isMuted ?? s.muted),
    keyProblem: Boolean(s.keyProblem),
    isFormerMember: Boolean(s.isFormerMember),
  };
}

export function convName(s) {
  if (!s) return '';
  if (s.title) return s.title;
  const names = s.participants.map((p) => p.name);
  return names.length ? names.join(', ') : 'Only you';
}

/** The id an avatar is coloured by: the other person's for a 1:1, so they look the same everywhere. */
export const faceId = (s) => (s && !s.title && s.participants.length === 1 ? s.participants[0].id : s ? s.id : '');

/** A group has a title or more than one other participant: it shows authors and can be left. */
export const isGroup = (s) => Boolean(s && (s.title || s.participants.length > 1));

export const STATUS_TEXT = { sending: 'sending…', sent: 'sent', delivered: 'delivered', read: 'read' };
export const STATUS_TICKS = { sending: '○', sent: '✓', delivered: '✓✓', read: '✓✓' };
