// The message box: Enter sends, Shift+Enter breaks the line; replies, edits, @mentions,
// and the "typing" signal.
import { h } from './dom.js';

const MAX_LINES = 6;
const TYPING_EVERY = 3000;

export class Composer {
  /**
   * hooks: send(text, replyTo) and edit(message, text) answer promises; typing(bool);
   * members() answers [{ id, name }] to mention (me excluded).
   */
  constructor(root, hooks) {
    this.hooks = hooks;
    this.drafts = new Map();
    this.conversation = null;
    this.context = null;        // { kind: 'reply' | 'edit', message }
    this.typingSentAt = 0;
    this.mention = null;        // { start, options, active }

    this.contextBar = h('div', { class: 'context-bar', hidden: true });
    this.mentionList = h('ul', { class: 'mention-list', role: 'listbox', id: 'mention-list', 'aria-label': 'Members', hidden: true });
    this.box = h('textarea', {
      id: 'composer-input', rows: '1', 'aria-label': 'Message', placeholder: 'Message',
      'aria-autocomplete': 'list', 'aria-controls': 'mention-list', 'aria-expanded': 'false',
    });
    this.sendBtn = h('button', { type: 'submit', class: 'send-btn primary' }, 'Send');
    this.note = h('p', { class: 'composer-note', hidden: true });
    this.form = h('form', { class: 'composer-row' }, this.box, this.sendBtn);
    root.replaceChildren(this.contextBar, this.mentionList, this.note, this.form);

    this.form.addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    this.box.addEventListener('keydown', (e) => this.onKey(e));
    this.box.addEventListener('input', () => this.onInput());
    this.box.addEventListener('click', () => this.updateMention());
    this.box.addEventListener('blur', () => {
      this.stopTyping();
      // Let a click on a suggestion land before the list goes.
      setTimeout(() => { if (document.activeElement !== this.box) this.closeMention(); }, 150);
    });
  }

  setConversation(id, { readOnly = false, reason = '' } = {}) {
    if (this.conversation && this.context?.kind !== 'edit') this.drafts.set(this.conversation, this.box.value);
    this.stopTyping();
    this.conversation = id;
    this.cancelContext(false);
    this.box.value = this.drafts.get(id) || '';
    this.setReadOnly(readOnly, reason);
    this.resize();
  }

  setReadOnly(readOnly, reason = '') {
    this.box.disabled = readOnly;
    this.sendBtn.disabled = readOnly;
    this.note.hidden = !readOnly;
    this.note.textContent = reason;
    this.box.placeholder = readOnly ? 'You cannot write here' : 'Message';
  }

  focus() { if (!this.box.disabled) this.box.focus(); }

  /** Puts back a text whose sending failed, unless the person wrote something since. */
  restore(text) {
    if (!this.box.value.trim()) { this.box.value = text; this.resize(); }
  }

  startReply(message) {
    this.setContext({ kind: 'reply', message });
    this.focus();
  }

  startEdit(message) {
    if (this.context?.kind !== 'edit') this.drafts.set(this.conversation, this.box.value);
    this.setContext({ kind: 'edit', message });
    this.box.value = message.text || '';
    this.resize();
    this.focus();
    this.box.setSelectionRange(this.box.value.length, this.box.value.length);
  }

  setContext(context) {
    this.context = context;
    const m = context.message;
    const title = context.kind === 'reply' ? `Replying to ${m.mine ? 'yourself' : m.authorName}` : 'Editing message';
    const preview = m.file ? (m.file.name || 'file') : (m.text || '');
    this.contextBar.replaceChildren(
      h('div', { class: 'context-text' }, h('strong', null, title), h('span', { class: 'context-preview' }, preview)),
      h('button', {
        type: 'button', class: 'icon-btn', 'aria-label': context.kind === 'reply' ? 'Cancel reply' : 'Cancel edit',
        onclick: () => { this.cancelContext(); this.focus(); },
      }, '×'));
    this.contextBar.hidden = false;
  }

  cancelContext(restoreDraft = true) {
    const wasEdit = this.context?.kind === 'edit';
    this.context = null;
    this.contextBar.hidden = true;
    this.contextBar.replaceChildren();
    if (wasEdit && restoreDraft) {
      this.box.value = this.drafts.get(this.conversation) || '';
      this.resize();
    }
  }

  async submit() {
    const text = this.box.value.replace(/^\s*\n|\s+$/g, '');
    if (!text.trim() || this.box.disabled) return;
    const context = this.context;
    if (context?.kind === 'edit') {
      // The box held the edited message: what was being written before comes back.
      this.box.value = this.drafts.get(this.conversation) || '';
    } else {
      this.box.value = '';
      this.drafts.delete(this.conversation);
    }
    this.cancelContext(false);
    this.closeMention();
    // The message is asked for first: the box's new height (a layout) comes after it.
    let sent;
    if (context?.kind === 'edit') {
      if (text !== context.message.text) sent = this.hooks.edit(context.message, text);
      this.resize();
      this.stopTyping();
    } else {
      sent = this.hooks.send(text, context?.kind === 'reply' ? context.message : null);
      this.resize();
      // The message itself ends my typing wherever it is shown (Protocol.md §10.2): a stop
      // beside it would be one more request here, and one more redraw in the other's page
      // while the message is on its way.
      this.typingSentAt = 0;
    }
    await sent;
  }

  onKey(e) {
    if (this.mention && !this.mentionList.hidden) {
      const n = this.mention.options.length;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.mention.active = (this.mention.active + (e.key === 'ArrowDown' ? 1 : -1) + n) % n;
        this.drawMention();
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        this.insertMention(this.mention.options[this.mention.active]);
        return;
      }
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); this.closeMention(); return; }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'Escape' && this.context) {
      e.preventDefault();
      e.stopPropagation();
      this.cancelContext();
    } else if (e.key === 'ArrowUp' && !this.box.value && this.hooks.editLast) {
      // As in the terminal chat: Up in an empty box edits my last message.
      if (this.hooks.editLast()) e.preventDefault();
    }
  }

  onInput() {
    this.resize();
    this.updateMention();
    if (!this.box.value.trim()) { this.stopTyping(); return; }
    const now = Date.now();
    if (now - this.typingSentAt >= TYPING_EVERY && this.context?.kind !== 'edit') {
      this.typingSentAt = now;
      this.hooks.typing(true);
    }
  }

  stopTyping() {
    if (!this.typingSentAt) return;
    this.typingSentAt = 0;
    this.hooks.typing(false);
  }

  resize() {
    const box = this.box;
    if (!box.value) {
      // Empty (just sent, mostly): its one row, without measuring the page on the message's
      // way out.
      box.style.height = '';
      box.classList.remove('scrolls');
      return;
    }
    box.style.height = 'auto';
    const cs = getComputedStyle(box);
    const line = parseFloat(cs.lineHeight) || 20;
    const extra = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
    const max = line * MAX_LINES + extra;
    box.style.height = `${Math.min(box.scrollHeight + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth), max)}px`;
    box.classList.toggle('scrolls', box.scrollHeight > max);
  }

  // "@" at the start of a word, then letters: suggest the members whose name starts so.
  updateMention() {
    const upto = this.box.value.slice(0, this.box.selectionStart);
    const match = /(^|\s)@([^\s@]{0,30})$/u.exec(upto);
    const members = match ? this.hooks.members() : [];
    if (!match || !members.length) { this.closeMention(); return; }
    const q = match[2].toLowerCase();
    const options = members.filter((m) => m.name.toLowerCase().startsWith(q)).slice(0, 8);
    if (!options.length) { this.closeMention(); return; }
    this.mention = { start: upto.length - match[2].length - 1, end: upto.length, options, active: 0 };
    this.drawMention();
  }

  drawMention() {
    const { options, active } = this.mention;
    this.mentionList.replaceChildren(...options.map((m, i) => h('li', {
      role: 'option', id: `mention-${i}`, class: 'mention-option', 'aria-selected': String(i === active),
      onmousedown: (e) => { e.preventDefault(); this.insertMention(m); },
    }, `@${m.name}`)));
    this.mentionList.hidden = false;
    this.box.setAttribute('aria-expanded', 'true');
    this.box.setAttribute('aria-activedescendant', `mention-${active}`);
  }

  closeMention() {
    this.mention = null;
    this.mentionList.hidden = true;
    this.box.setAttribute('aria-expanded', 'false');
    this.box.removeAttribute('aria-activedescendant');
  }

  insertMention(member) {
    const { start, end } = this.mention;
    const value = this.box.value;
    const insert = `@${member.name} `;
    this.box.value = value.slice(0, start) + insert + value.slice(end);
    const caret = start + insert.length;
    this.box.setSelectionRange(caret, caret);
    this.closeMention();
    this.resize();
    this.box.focus();
  }
}
