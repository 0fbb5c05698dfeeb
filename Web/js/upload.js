// Sending files from the browser: the Attach button and files or folders dropped on the
// chat. Each goes to POST /api/v1/upload with its bytes, shown in a tray with a progress
// bar until the node has it; the file message itself then arrives as an event.
import { h, toast } from './dom.js';
import { fileSize } from './format.js';

/** Files and folders dropped: [{ file, folder }], folder being its place in a dropped tree. */
async function droppedFiles(dataTransfer) {
  const entries = [...(dataTransfer.items || [])]
    .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null))
    .filter(Boolean);
  if (!entries.length) return [...(dataTransfer.files || [])].map((file) => ({ file, folder: '' }));
  const out = [];
  const walk = async (entry, folder) => {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      out.push({ file, folder });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      const inside = folder ? `${folder}/${entry.name}` : entry.name;
      // A directory reader answers in batches until an empty one.
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child, inside);
      }
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

export class Uploader {
  /** tray: where uploads in progress are listed; conversation(): the open conversation's id. */
  constructor(tray, conversation) {
    this.tray = tray;
    this.conversation = conversation;
    this.picker = h('input', { type: 'file', multiple: true, hidden: true, tabIndex: -1, 'aria-hidden': 'true' });
    this.picker.addEventListener('change', () => {
      this.send([...this.picker.files].map((file) => ({ file, folder: '' })));
      this.picker.value = '';
    });
    this.button = h('button', { type: 'button', class: 'attach-btn icon-btn', 'aria-label': 'Attach', title: 'Attach files' }, '📎');
    this.button.addEventListener('click', () => this.picker.click());
  }

  /** Lets `area` take files and folders dropped on it. */
  acceptDrops(area) {
    area.addEventListener('dragover', (e) => {
      if (!this.conversation() || ![...e.dataTransfer.types].includes('Files')) return;
      e.preventDefault();
      area.classList.add('drop-target');
    });
    area.addEventListener('dragleave', () => area.classList.remove('drop-target'));
    area.addEventListener('drop', async (e) => {
      area.classList.remove('drop-target');
      if (!this.conversation()) return;
      e.preventDefault();
      this.send(await droppedFiles(e.dataTransfer));
    });
  }

  async send(items) {
    const conversation = this.conversation();
    if (!conversation) return;
    // One at a time: the node encrypts each into its store as it arrives.
    for (const item of items) await this.upload(conversation, item);
  }

  upload(conversation, { file, folder }) {
    const bar = h('progress', { max: '100', value: '0', 'aria-label': `Sending ${file.name}` });
    const row = h('li', { class: 'upload' }, h('span', { class: 'upload-name' }, file.name),
      h('span', { class: 'upload-size' }, fileSize(file.size)), bar);
    this.tray.append(row);
    this.tray.hidden = false;
    // Percent-encoded, not URLSearchParams: that writes a space as "+", which a query
    // takes literally (a file may be named "a+b").
    const query = [['conversation', conversation], ['name', file.name], ...(folder ? [['folder', folder]] : [])]
      .map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
    return new Promise((resolve) => {
      // XMLHttpRequest, not fetch: only it reports how much of a body has gone.
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `/api/v1/upload?${query}`);
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100); };
      const done = (error) => {
        row.remove();
        this.tray.hidden = !this.tray.children.length;
        if (error) toast(`Could not send ${file.name}: ${error}`);
        resolve();
      };
      xhr.onload = () => {
        let answer = null;
        try { answer = JSON.parse(xhr.responseText); } catch { /* not JSON: the status says it */ }
        done(xhr.status === 200 && answer && answer.ok ? null : (answer && answer.error) || `the node answered ${xhr.status}`);
      };
      xhr.onerror = () => done('the node could not be reached');
      xhr.send(file);
    });
  }
}
