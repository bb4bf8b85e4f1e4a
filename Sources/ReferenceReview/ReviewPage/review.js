// The review page: reads window.REFERENCE_REVIEW (review-data.js, written by merge-refs --report)
// and shows one card per added, updated, conflicting or orphaned reference image.
//
// Only the cards near the viewport exist in the document (every card has the same height, so
// card i sits at i × height in a spacer as tall as the list), and their images are only asked
// for then; the data itself is metadata, so a report of 10,000 changes opens at once.
// Decisions live in localStorage under the report's id; the export is the decision file that
// merge-refs --include-from reads: one line per accepted path, bound to the pixel digests
// reviewed (path, before, after, separated by tabs), after # comment lines.
'use strict';

(() => {
  performance.mark('review-script-start');
  const data = window.REFERENCE_REVIEW;
  const $ = (id) => document.getElementById(id);

  if (!data || data.version !== 1 || !Array.isArray(data.cards)) {
    $('summary').textContent = data
      ? `review-data.js has version ${data.version}; this page reads version 1. Write the report again with the same merge-refs.`
      : 'review-data.js did not load. Open index.html inside the folder merge-refs --report wrote, with review-data.js beside it.';
    return;
  }

  const MODES = [
    { key: 'side', name: 'side by side' },
    { key: 'swipe', name: 'swipe' },
    { key: 'onion', name: 'onion skin' },
    { key: 'flicker', name: 'flicker' },
    { key: 'overlay', name: 'difference overlay' },
    { key: 'boxes', name: 'changed regions' },
  ];
  const OUTCOMES = ['added', 'updated', 'conflict', 'unstable', 'orphan'];
  const DECIDABLE = new Set(['added', 'updated']);
  const STATUSES = ['all', 'undecided', 'accepted', 'rejected'];
  const MIN_GRID_SCALE = 6; // screen pixels per image pixel from which the pixel grid shows
  const MAX_SCALE = 64;

  const KEYS = [
    ['j  ↓  →', 'next card'],
    ['k  ↑  ←', 'previous card'],
    ['Home  End', 'first, last card'],
    ['a', 'accept the card (in “one card per identical change”, the whole group)'],
    ['r  x', 'reject the card (likewise)'],
    ['Shift+A', 'accept every card with the same change'],
    ['Shift+R  Shift+X', 'reject every card with the same change'],
    ['u', 'undo the last decision (again for the one before)'],
    ['1 – 6', 'comparison: ' + MODES.map((mode, i) => `${i + 1} ${mode.name}`).join(', ')],
    ['m  Shift+M', 'next, previous comparison mode'],
    ['[  ]', 'move the swipe, onion-skin or overlay slider'],
    ['+  −  0', 'zoom in, out, fit (also Ctrl+wheel or double-click; drag to pan)'],
    ['n  p', 'next, previous undecided card'],
    ['Shift+N  Shift+P', 'next, previous card with the same outcome as this one'],
    ['/', 'filter by path (Enter or Escape returns to the cards)'],
    ['f  Shift+F', 'cycle the decision filter: every, undecided, accepted, rejected'],
    ['g', 'one card per identical change, or every card'],
    ['?', 'show or hide this panel'],
    ['Escape', 'close this panel'],
  ];

  // ---- Data ---------------------------------------------------------------------------------

  const cards = data.cards.slice().sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.id - b.id);
  for (const card of cards) card.lowerPath = card.path.toLowerCase();
  const groups = new Map();
  for (const card of cards) {
    if (!card.group) continue;
    let members = groups.get(card.group);
    if (!members) groups.set(card.group, (members = []));
    members.push(card);
  }
  const decidableCount = cards.filter((card) => DECIDABLE.has(card.outcome)).length;
  const commandText = (data.command || []).map(shellQuoted).join(' ');
  const decisionFile = data.decisionFile || 'reference-decisions.txt';

  // ---- Decisions ----------------------------------------------------------------------------

  const storageKey = 'reference-review:' + data.id;
  const decisions = loadDecisions(); // path -> 'accepted' | 'rejected'; absent: undecided
  const undoStack = []; // batches of [path, previous decision or undefined]

  function loadDecisions() {
    const known = new Set(cards.filter((c) => DECIDABLE.has(c.outcome)).map((c) => c.path));
    const result = new Map();
    try {
      const saved = JSON.parse(localStorage.getItem(storageKey) || 'null');
      for (const [path, value] of Object.entries((saved && saved.decisions) || {})) {
        if (known.has(path) && (value === 'accepted' || value === 'rejected')) {
          result.set(path, value);
        }
      }
    } catch (error) {
      // Storage off (private window) or a damaged entry: start undecided.
    }
    return result;
  }

  function saveDecisions() {
    try {
      localStorage.setItem(storageKey,
        JSON.stringify({ version: 1, decisions: Object.fromEntries(decisions) }));
    } catch (error) {
      // Storage full or off: decisions still hold for this visit and the export.
    }
  }

  const statusOf = (card) =>
    DECIDABLE.has(card.outcome) ? decisions.get(card.path) || 'undecided' : 'none';

  /** Sets `value` ('accepted', 'rejected' or undefined) on every decidable card of `targets`. */
  function decide(targets, value) {
    const batch = [];
    for (const card of targets) {
      if (!DECIDABLE.has(card.outcome)) continue;
      const previous = decisions.get(card.path);
      if (previous === value) continue;
      batch.push([card.path, previous]);
      if (value) decisions.set(card.path, value);
      else decisions.delete(card.path);
    }
    if (batch.length === 0) return false;
    undoStack.push(batch);
    decisionsChanged();
    return true;
  }

  function undo() {
    const batch = undoStack.pop();
    if (!batch) return;
    for (const [path, previous] of batch) {
      if (previous) decisions.set(path, previous);
      else decisions.delete(path);
    }
    decisionsChanged();
    const first = cards.find((card) => card.path === batch[0][0]);
    refilter(first, true);
  }

  function decisionsChanged() {
    saveDecisions();
    for (const [id, element] of rendered) updateCardState(element, byId.get(id));
    updateCounts();
    scheduleExport();
  }

  // ---- Export -------------------------------------------------------------------------------

  const acceptedCards = () =>
    cards.filter((c) => DECIDABLE.has(c.outcome) && decisions.get(c.path) !== 'rejected');

  function exportText() {
    const accepted = acceptedCards();
    return `# Reference images accepted in review (${accepted.length} of ${decidableCount}).\n`
      + '# Land them with:\n# ' + commandText + '\n'
      + '# Each line binds a path to the pixels reviewed: path, TAB, the reference\'s pixel digest\n'
      + '# (- when there was none), TAB, the new image\'s. merge-refs lands a path only while the\n'
      + '# sources and the destination still hold exactly those pixels.\n'
      + accepted.map((c) => exportLine(c) + '\n').join('');
  }

  /**
   * One accepted card as a decision line. Every path has a line of its own, also when it was
   * decided as part of a group of identical changes: each binds its own reference.
   */
  function exportLine(card) {
    const path = globEscaped(card.path);
    const bound = card.afterPixels && (card.outcome === 'added' || card.beforePixels);
    return bound ? `${path}\t${card.beforePixels || '-'}\t${card.afterPixels}` : path;
  }

  /** The path as an --include-from line that matches only itself: `*`, `?` and `\` escaped. */
  const globEscaped = (path) => path.replace(/[\\*?]/g, '\\$&');

  let exportURL = null;
  let exportTimer = 0;
  function refreshExport() {
    clearTimeout(exportTimer);
    exportTimer = 0;
    const text = exportText();
    $('decision-file').textContent = text;
    if (exportURL) URL.revokeObjectURL(exportURL);
    exportURL = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    $('download').href = exportURL;
  }
  function scheduleExport() {
    if (!exportTimer) exportTimer = setTimeout(refreshExport, 120);
  }

  function updateCounts() {
    let rejected = 0;
    for (const value of decisions.values()) if (value === 'rejected') rejected += 1;
    const decided = decisions.size;
    $('accepted-count').textContent =
      `${decidableCount - rejected} of ${decidableCount} accepted · ${rejected} rejected · `
      + `${decidableCount - decided} undecided`;
  }

  // ---- Filters and the visible list ---------------------------------------------------------

  const state = {
    mode: Math.max(0, MODES.findIndex((m) => m.key === storedMode())),
    outcomes: new Set(OUTCOMES),
    status: 'all',
    path: '',
    collapse: false,
    groupOnly: null,
    current: 0,
  };
  let visible = [];
  const views = new Map(); // card id -> { s, cx, cy } once zoomed or panned; absent: fit

  function storedMode() {
    try { return localStorage.getItem('reference-review:mode'); } catch (error) { return null; }
  }

  function computeVisible() {
    const query = state.path.toLowerCase();
    let list = cards.filter((card) =>
      state.outcomes.has(card.outcome)
      && (!query || card.lowerPath.includes(query))
      && (state.status === 'all' || statusOf(card) === state.status)
      && (!state.groupOnly || card.group === state.groupOnly));
    if (state.collapse && !state.groupOnly) {
      const seen = new Set();
      list = list.filter((card) => {
        if (!card.group) return true;
        if (seen.has(card.group)) return false;
        seen.add(card.group);
        return true;
      });
    }
    return list;
  }

  /**
   * Recomputes the list, keeping `focus` (or the current card) current when it is still shown.
   * When it is not: after a decision hid it (`stay`), the card now in its place (the next one);
   * after a filter changed, the first card.
   */
  function refilter(focus, stay) {
    const keep = focus || visible[state.current];
    const oldIndex = state.current;
    visible = computeVisible();
    let index = keep ? visible.indexOf(keep) : -1;
    if (index < 0) index = stay ? Math.min(oldIndex, visible.length - 1) : 0;
    state.current = Math.max(0, index);
    for (const element of rendered.values()) element.remove();
    rendered.clear();
    spacer.style.height = visible.length * cardHeight + 'px';
    $('visible-count').textContent = `${visible.length} of ${cards.length} cards shown`;
    empty.hidden = visible.length > 0;
    scrollToCurrent();
    renderWindow();
    updateHeader();
  }

  // ---- The virtual list ---------------------------------------------------------------------

  const list = $('list');
  const spacer = $('spacer');
  const cardHeight =
    parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--card-h')) || 520;
  const rendered = new Map(); // card id -> element, only for cards near the viewport
  const byId = new Map(cards.map((card) => [card.id, card]));
  const empty = document.createElement('p');
  empty.className = 'empty';
  empty.textContent = 'No card matches the filters.';
  list.appendChild(empty);

  function renderWindow() {
    const top = list.scrollTop;
    const first = Math.max(0, Math.floor(top / cardHeight) - 1);
    const last = Math.min(visible.length - 1,
      Math.floor((top + list.clientHeight) / cardHeight) + 1);
    const wanted = new Set();
    const added = [];
    for (let index = first; index <= last; index += 1) {
      const card = visible[index];
      wanted.add(card.id);
      let element = rendered.get(card.id);
      if (!element) {
        element = buildCard(card, index);
        rendered.set(card.id, element);
        spacer.appendChild(element);
        added.push(element);
      }
      element.style.top = index * cardHeight + 'px';
      element.classList.toggle('current', index === state.current);
    }
    for (const [id, element] of rendered) {
      if (!wanted.has(id)) {
        element.remove();
        rendered.delete(id);
      }
    }
    for (const element of added) layoutCard(element);
  }

  let frame = 0;
  const scheduleRender = () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderWindow(); });
  };
  list.addEventListener('scroll', scheduleRender, { passive: true });
  window.addEventListener('resize', () => {
    renderWindow();
    for (const element of rendered.values()) layoutCard(element);
  });

  function scrollToCurrent() {
    const top = state.current * cardHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + cardHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + cardHeight - list.clientHeight;
    }
  }

  function setCurrent(index) {
    if (visible.length === 0) return;
    state.current = Math.max(0, Math.min(visible.length - 1, index));
    scrollToCurrent();
    renderWindow();
    updateHeader();
  }

  /** Moves to the next card after `from` (in `step` direction) that `test` accepts. */
  function jump(step, test) {
    for (let i = state.current + step; i >= 0 && i < visible.length; i += step) {
      if (test(visible[i])) return setCurrent(i);
    }
  }

  // ---- Cards --------------------------------------------------------------------------------

  const make = (tag, className, text) => {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  };
  const size = (image) => `${image.width}×${image.height}`;
  const number = (value) => value.toLocaleString('en-US');

  function buildCard(card, index) {
    const element = make('section', `card ${card.outcome}`);
    element.dataset.id = card.id;
    element.dataset.path = card.path;
    element.dataset.outcome = card.outcome;

    const head = make('div', 'card-head');
    if (DECIDABLE.has(card.outcome)) {
      const buttons = make('span', 'decide');
      const accept = make('button', 'accept', '✓ accept');
      accept.type = 'button';
      accept.title = 'Accept (a)';
      const reject = make('button', 'reject', '✗ reject');
      reject.type = 'button';
      reject.title = 'Reject (r)';
      buttons.append(accept, reject);
      head.append(buttons);
    }
    head.append(make('span', `badge ${card.outcome}`, card.outcome));
    const path = make('span', 'path', '\u200e' + card.path + '\u200e');
    path.title = card.path;
    head.append(path);
    if (card.changedPixels != null && card.totalPixels) {
      const share = (100 * card.changedPixels / card.totalPixels).toFixed(2);
      const max = card.maxChannelDifference != null
        ? `, largest channel difference ${card.maxChannelDifference}` : '';
      head.append(make('span', 'figure',
        `${number(card.changedPixels)} of ${number(card.totalPixels)} pixels differ (${share}%)${max}`));
    }
    head.append(make('span', 'state'));
    head.append(make('span', 'index', `${index + 1} / ${visible.length}`));
    element.append(head);

    if (card.meta && card.meta.length) {
      const meta = make('ul', 'meta');
      for (const line of card.meta) {
        const item = make('li', '', line);
        item.title = line; // a long line is cut on the card, whole in its tooltip
        meta.append(item);
      }
      element.append(meta);
    }
    const note = make('div', 'note');
    if (card.before && card.after && size(card.before) !== size(card.after)) {
      note.append(make('span', 'size-note',
        `size changed: before ${size(card.before)}, after ${size(card.after)}`));
    }
    const members = card.group ? groups.get(card.group) : null;
    if (members && members.length > 1) {
      const group = make('span', 'group-note');
      const accept = make('button', 'group-accept', `Accept all ${members.length} (Shift+A)`);
      const reject = make('button', 'group-reject', `Reject all ${members.length} (Shift+R)`);
      const show = make('button', 'group-show', state.groupOnly ? 'show every card' : 'show them');
      for (const button of [accept, reject, show]) button.type = 'button';
      note.append(group, accept, reject, show);
    }
    if (card.outcome === 'conflict') {
      note.append(make('span', '',
        'Sources disagree: nothing lands for this path until one run is chosen (or it is left out).'));
    } else if (card.outcome === 'unstable') {
      note.append(make('span', '',
        'Replicated runs of this test rendered different pixels: "before" is one run\'s render, '
        + '"after" the other\'s. Neither lands; make the render deterministic.'));
    } else if (card.outcome === 'orphan') {
      note.append(make('span', '',
        'No complete run produced this reference; it stays, and is only pruned by merge-refs --prune.'));
    }
    if (note.childElementCount) element.append(note);

    element.append(buildPanes(card));
    updateCardState(element, card);
    return element;
  }

  function updateCardState(element, card) {
    const status = statusOf(card);
    element.classList.toggle('accepted', status === 'accepted');
    element.classList.toggle('rejected', status === 'rejected');
    const label = element.querySelector('.state');
    label.className = 'state ' + status;
    label.textContent = status === 'none' ? 'not decidable here'
      : status === 'undecided' ? 'undecided (lands)' : status;
    const accept = element.querySelector('.decide .accept');
    if (accept) {
      accept.setAttribute('aria-pressed', String(status === 'accepted'));
      element.querySelector('.decide .reject').setAttribute('aria-pressed', String(status === 'rejected'));
    }
    const note = element.querySelector('.group-note');
    if (note) {
      const members = groups.get(card.group);
      let accepted = 0;
      let rejected = 0;
      for (const member of members) {
        const value = decisions.get(member.path);
        if (value === 'accepted') accepted += 1;
        else if (value === 'rejected') rejected += 1;
      }
      const stands = state.collapse && !state.groupOnly ? ' (this card stands for all of them)' : '';
      note.textContent = `This change appears in ${members.length} images${stands}: `
        + `${accepted} accepted, ${rejected} rejected, ${members.length - accepted - rejected} undecided`;
    }
  }

  /** The panes of a card for the current mode; every pane shows the same canvas. */
  function buildPanes(card) {
    const row = make('div', 'pane-row');
    const canvas = canvasOf(card);
    const pane = (label, layers, extra, captionClass) => {
      const element = make('div', 'pane');
      const caption = make('div', 'pane-label' + (captionClass ? ' ' + captionClass : ''));
      caption.innerHTML = label;
      caption.title = caption.textContent;
      const viewport = make('div', 'viewport');
      for (const layer of layers) viewport.append(layer);
      if (extra) viewport.append(extra);
      viewport.append(make('div', 'grid'));
      element.append(caption, viewport);
      row.append(element);
      return element;
    };
    const layer = (content, className) => {
      const element = make('div', 'layer' + (className ? ' ' + className : ''));
      const stage = make('div', 'stage');
      stage.style.width = canvas.width + 'px';
      stage.style.height = canvas.height + 'px';
      for (const item of content) stage.append(item);
      element.append(stage);
      return element;
    };
    const image = (ref, alt) => {
      const element = document.createElement('img');
      element.loading = 'lazy';
      element.decoding = 'async';
      element.alt = alt;
      element.width = ref.width;
      element.height = ref.height;
      element.src = ref.src;
      return element;
    };
    const described = (name, ref) => `<b>${name}</b> ${ref ? size(ref) : ''}`;

    if (card.outcome === 'added' || card.outcome === 'orphan' || !card.before || !card.after) {
      const only = card.after || card.before;
      const name = card.outcome === 'added' ? 'new'
        : card.outcome === 'orphan' ? 'current (no run produced it)' : card.after ? 'after' : 'current';
      if (only) pane(described(name, only), [layer([image(only, name)])]);
      if (card.outcome === 'conflict') addRivals(card, pane, layer, image, described);
      if (!row.childElementCount) row.append(make('p', 'missing', 'No image to show.'));
      return row;
    }

    const mode = MODES[state.mode].key;
    const before = () => image(card.before, 'before');
    const after = () => image(card.after, 'after');
    const sizes = `before ${size(card.before)}, after ${size(card.after)}`;
    if (mode === 'side') {
      pane(described('before', card.before), [layer([before()])]);
      pane(described('after', card.after), [layer([after()])]);
    } else if (mode === 'swipe') {
      pane(`<b>swipe</b>: before left of the line, after right (${sizes})`,
        [layer([before()]), layer([after()], 'swipe-top')], make('div', 'swipe-line'));
    } else if (mode === 'onion') {
      pane(`<b>onion skin</b>: after over before, opacity from the slider (${sizes})`,
        [layer([before()]), layer([after()], 'onion-top')]);
    } else if (mode === 'flicker') {
      const label = make('div', 'flicker-label');
      label.innerHTML = '<span class="shows-after">after</span><span class="shows-before">before</span>';
      pane(`<b>flicker</b>: before and after in turn (${sizes})`,
        [layer([before()]), layer([after()], 'flicker-top'), label]);
    } else if (mode === 'overlay' || mode === 'boxes') {
      const difference = card.difference;
      if (mode === 'overlay' && difference) {
        pane(`<b>difference</b> over after, opacity from the slider (${sizes})`,
          [layer([after()]), layer([image(difference, 'difference')], 'overlay-top')]);
      } else {
        const regions = card.regions || [];
        pane(`<b>${regions.length} changed region${regions.length === 1 ? '' : 's'}</b> boxed on after (${sizes})`
          + (mode === 'overlay' ? ' — no difference image in this report' : ''),
          [layer([after(), boxes(regions, canvas)])]);
      }
    }
    return row;
  }

  function addRivals(card, pane, layer, image, described) {
    for (const rival of card.rivals || []) {
      // Runs differ at the end of their labels (host, pid): a long label loses its start.
      if (rival.image) {
        pane('\u200e' + described(escapeHTML(rival.label), rival.image) + '\u200e',
          [layer([image(rival.image, rival.label)])], null, 'cut-start');
      }
    }
  }

  function boxes(regions, canvas) {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('width', canvas.width);
    svg.setAttribute('height', canvas.height);
    svg.setAttribute('viewBox', `0 0 ${canvas.width} ${canvas.height}`);
    for (const [x, y, width, height] of regions) {
      const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      rect.setAttribute('x', x);
      rect.setAttribute('y', y);
      rect.setAttribute('width', width);
      rect.setAttribute('height', height);
      svg.append(rect);
    }
    return svg;
  }

  /** The union of the card's image sizes: a size change shows both on one canvas. */
  function canvasOf(card) {
    const images = [card.before, card.after, card.difference]
      .concat((card.rivals || []).map((rival) => rival.image)).filter(Boolean);
    return {
      width: Math.max(1, ...images.map((image) => image.width)),
      height: Math.max(1, ...images.map((image) => image.height)),
    };
  }

  function rebuildPanes() {
    for (const [id, element] of rendered) {
      const card = byId.get(id);
      if (card.outcome !== 'updated') continue;
      element.querySelector('.pane-row').replaceWith(buildPanes(card));
      layoutCard(element);
    }
  }

  // ---- Zoom and pan, one view per card shared by its panes ----------------------------------

  function fitScale(viewport, canvas) {
    const fit = Math.min(viewport.clientWidth / canvas.width, viewport.clientHeight / canvas.height);
    return fit >= 1 ? Math.floor(fit) : fit; // whole multiples keep pixels square when enlarged
  }

  function viewFor(card, viewport) {
    const canvas = canvasOf(card);
    const saved = views.get(card.id);
    if (saved) return saved;
    return { s: fitScale(viewport, canvas) || 1, cx: canvas.width / 2, cy: canvas.height / 2 };
  }

  function layoutCard(element) {
    const card = byId.get(Number(element.dataset.id));
    for (const viewport of element.querySelectorAll('.viewport')) {
      const view = viewFor(card, viewport);
      const tx = viewport.clientWidth / 2 - view.cx * view.s;
      const ty = viewport.clientHeight / 2 - view.cy * view.s;
      for (const stage of viewport.querySelectorAll('.stage')) {
        stage.style.transform = `translate(${tx}px, ${ty}px) scale(${view.s})`;
      }
      const grid = viewport.querySelector('.grid');
      if (view.s >= MIN_GRID_SCALE) {
        grid.style.backgroundImage =
          'linear-gradient(to right, rgba(0,0,0,.22) 1px, transparent 1px),'
          + 'linear-gradient(to bottom, rgba(0,0,0,.22) 1px, transparent 1px)';
        grid.style.backgroundSize = `${view.s}px ${view.s}px`;
        grid.style.backgroundPosition = `${tx}px ${ty}px`;
      } else {
        grid.style.backgroundImage = 'none';
      }
    }
    if (element.classList.contains('current')) updateZoomLabel();
  }

  function zoom(card, viewport, factor, x, y) {
    const view = viewFor(card, viewport);
    const canvas = canvasOf(card);
    const fit = fitScale(viewport, canvas) || 1;
    const scale = Math.max(Math.min(fit, 1) / 4, Math.min(MAX_SCALE, view.s * factor));
    if (x === undefined) { x = viewport.clientWidth / 2; y = viewport.clientHeight / 2; }
    // The image point under (x, y) stays under it.
    const ix = view.cx + (x - viewport.clientWidth / 2) / view.s;
    const iy = view.cy + (y - viewport.clientHeight / 2) / view.s;
    views.set(card.id, {
      s: scale,
      cx: ix - (x - viewport.clientWidth / 2) / scale,
      cy: iy - (y - viewport.clientHeight / 2) / scale,
    });
    relayout(card);
  }

  function relayout(card) {
    const element = rendered.get(card.id);
    if (element) layoutCard(element);
  }

  function zoomCurrent(factor) {
    const card = visible[state.current];
    const element = card && rendered.get(card.id);
    const viewport = element && element.querySelector('.viewport');
    if (!viewport) return;
    if (factor === 0) { views.delete(card.id); relayout(card); } else zoom(card, viewport, factor);
  }

  function updateZoomLabel() {
    const card = visible[state.current];
    const element = card && rendered.get(card.id);
    const viewport = element && element.querySelector('.viewport');
    if (!viewport) { $('zoom-level').textContent = ''; return; }
    const view = viewFor(card, viewport);
    $('zoom-level').textContent = `${Math.round(view.s * 100)}%${views.has(card.id) ? '' : ' (fit)'}`
      + (view.s >= MIN_GRID_SCALE ? ', pixel grid' : '');
  }

  const cardOf = (target) => {
    const element = target.closest && target.closest('.card');
    return element ? byId.get(Number(element.dataset.id)) : null;
  };

  spacer.addEventListener('wheel', (event) => {
    const viewport = event.target.closest('.viewport');
    if (!viewport || !(event.ctrlKey || event.metaKey || event.altKey)) return;
    event.preventDefault();
    const rect = viewport.getBoundingClientRect();
    zoom(cardOf(viewport), viewport, Math.exp(-event.deltaY / 300),
      event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  spacer.addEventListener('dblclick', (event) => {
    const viewport = event.target.closest('.viewport');
    if (!viewport) return;
    const rect = viewport.getBoundingClientRect();
    zoom(cardOf(viewport), viewport, event.shiftKey ? 0.5 : 2,
      event.clientX - rect.left, event.clientY - rect.top);
  });

  let drag = null;
  spacer.addEventListener('pointerdown', (event) => {
    const viewport = event.target.closest('.viewport');
    if (!viewport || event.button !== 0) return;
    const card = cardOf(viewport);
    drag = { card, viewport, x: event.clientX, y: event.clientY, view: { ...viewFor(card, viewport) } };
    viewport.classList.add('dragging');
    viewport.setPointerCapture(event.pointerId);
  });
  spacer.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const { view } = drag;
    views.set(drag.card.id, {
      s: view.s,
      cx: view.cx - (event.clientX - drag.x) / view.s,
      cy: view.cy - (event.clientY - drag.y) / view.s,
    });
    relayout(drag.card);
  });
  const endDrag = () => {
    if (drag) drag.viewport.classList.remove('dragging');
    drag = null;
  };
  spacer.addEventListener('pointerup', endDrag);
  spacer.addEventListener('pointercancel', endDrag);

  // An image that does not load says so in its pane rather than leaving it blank.
  spacer.addEventListener('error', (event) => {
    if (event.target.tagName !== 'IMG') return;
    const label = event.target.closest('.pane').querySelector('.pane-label');
    label.append(make('span', 'missing', ` — could not load ${event.target.getAttribute('src')}`));
  }, true);

  // ---- Clicks -------------------------------------------------------------------------------

  spacer.addEventListener('click', (event) => {
    const card = cardOf(event.target);
    if (!card) return;
    const index = visible.indexOf(card);
    if (index >= 0 && index !== state.current) setCurrent(index);
    const button = event.target.closest('button');
    if (!button) return;
    if (button.classList.contains('accept')) decideCard(card, 'accepted', false);
    else if (button.classList.contains('reject')) decideCard(card, 'rejected', false);
    else if (button.classList.contains('group-accept')) decideCard(card, 'accepted', true);
    else if (button.classList.contains('group-reject')) decideCard(card, 'rejected', true);
    else if (button.classList.contains('group-show')) {
      state.groupOnly = state.groupOnly ? null : card.group;
      refilter(card);
    }
  });

  /** A decision from a key or button: a second press of the same decision undoes it. */
  function decideCard(card, value, wholeGroup) {
    if (!card || !DECIDABLE.has(card.outcome)) return;
    const targets = (wholeGroup || (state.collapse && !state.groupOnly)) && card.group
      ? groups.get(card.group) : [card];
    const next = !wholeGroup && targets.length === 1 && statusOf(card) === value ? undefined : value;
    decide(targets, next);
    if (state.status !== 'all') refilter(null, true);
  }

  // ---- Header -------------------------------------------------------------------------------

  function buildHeader() {
    const counts = data.counts || {};
    $('summary').textContent = `${counts.added || 0} added, ${counts.updated || 0} updated, `
      + `${counts.unchanged || 0} unchanged, ${counts.conflict || 0} conflicts, `
      + (counts.unstable ? `${counts.unstable} unstable, ` : '')
      + `${counts.orphan || 0} orphans, ${counts.skipped || 0} skipped — destination `
      + `${data.destination}` + (data.generatedAt ? ` — written ${data.generatedAt}` : '');

    const filters = $('outcome-filters');
    for (const outcome of OUTCOMES) {
      const count = cards.filter((card) => card.outcome === outcome).length;
      const label = make('label', `filter ${outcome}`);
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.dataset.outcome = outcome;
      box.addEventListener('change', () => {
        if (box.checked) state.outcomes.add(outcome); else state.outcomes.delete(outcome);
        refilter();
      });
      const bold = make('b', '', String(count));
      label.append(box, ` ${outcome} `, bold);
      filters.append(label);
    }

    const sources = data.sources || [];
    $('sources-summary').textContent = `${sources.length} source${sources.length === 1 ? '' : 's'}`;
    for (const source of sources) {
      const state = source.incomplete ? ` — incomplete: ${source.incomplete}` : '';
      $('sources').append(make('li', '',
        `${source.name}: ${source.images} images, ${source.worker}${state}`));
    }
    for (const problem of data.problems || []) $('problems').append(make('li', '', problem));
    for (const warning of data.warnings || []) $('problems').append(make('li', 'warning', warning));
    const skippedTests = data.skippedTests || [];
    if (skippedTests.length) {
      const shown = skippedTests.slice(0, 20).join(', ') + (skippedTests.length > 20 ? ', …' : '');
      $('problems').append(make('li', 'warning',
        `${skippedTests.length} test${skippedTests.length === 1 ? ' was' : 's were'} skipped: they `
        + `verified nothing, and the references they may own are kept (${shown})`));
    }

    const modes = $('modes');
    MODES.forEach((mode, index) => {
      const button = make('button', '', `${index + 1} ${mode.name}`);
      button.type = 'button';
      button.dataset.mode = mode.key;
      button.title = `${mode.name} (${index + 1})`;
      button.addEventListener('click', () => setMode(index));
      modes.append(button);
    });

    $('command').textContent = commandText;
    $('decision-file-name').textContent = decisionFile;
    $('download').setAttribute('download', decisionFile);
    $('download').addEventListener('click', refreshExport); // the link always carries every decision
    $('export-details').addEventListener('toggle', refreshExport);
    $('accept-all').addEventListener('click', () => decide(cards, 'accepted'));
    $('reject-all').addEventListener('click', () => decide(cards, 'rejected'));
    $('undo').addEventListener('click', undo);
    $('status-filter').addEventListener('change', (event) => setStatus(event.target.value));
    $('path-filter').addEventListener('input', (event) => {
      state.path = event.target.value;
      refilter();
    });
    $('group-toggle').addEventListener('change', (event) => {
      state.collapse = event.target.checked;
      refilter();
    });
    $('group-filter-clear').addEventListener('click', () => { state.groupOnly = null; refilter(); });
    $('mix').addEventListener('input', (event) => setMix(Number(event.target.value)));
    $('zoom-in').addEventListener('click', () => zoomCurrent(1.5));
    $('zoom-out').addEventListener('click', () => zoomCurrent(1 / 1.5));
    $('zoom-fit').addEventListener('click', () => zoomCurrent(0));
    $('help-button').addEventListener('click', () => toggleHelp());
    $('help-close').addEventListener('click', () => toggleHelp(false));

    const table = $('help-keys');
    for (const [keys, action] of KEYS) {
      const row = table.insertRow();
      const cell = row.insertCell();
      for (const key of keys.split('  ')) cell.append(make('kbd', '', key), ' ');
      row.insertCell().textContent = action;
    }
  }

  function updateHeader() {
    for (const button of $('modes').children) {
      button.setAttribute('aria-pressed', String(button.dataset.mode === MODES[state.mode].key));
    }
    const mode = MODES[state.mode].key;
    $('mix-label').hidden = !['swipe', 'onion', 'overlay'].includes(mode);
    $('status-filter').value = state.status;
    $('group-toggle').checked = state.collapse;
    $('group-filter').hidden = !state.groupOnly;
    if (state.groupOnly) {
      $('group-filter-label').textContent =
        `showing the ${groups.get(state.groupOnly).length} images with one change`;
    }
    document.body.dataset.mode = mode;
    updateZoomLabel();
  }

  function setMode(index) {
    state.mode = (index + MODES.length) % MODES.length;
    try { localStorage.setItem('reference-review:mode', MODES[state.mode].key); } catch (error) { /* optional */ }
    rebuildPanes();
    updateHeader();
    runFlicker();
  }

  function setStatus(status) {
    state.status = status;
    refilter();
  }

  function setMix(value) {
    const mix = Math.max(0, Math.min(100, value));
    $('mix').value = mix;
    document.body.style.setProperty('--mix', mix);
  }

  let flickerTimer = 0;
  function runFlicker() {
    clearInterval(flickerTimer);
    document.body.classList.remove('flick');
    if (MODES[state.mode].key === 'flicker') {
      flickerTimer = setInterval(() => document.body.classList.toggle('flick'), 600);
    }
  }

  function toggleHelp(show) {
    const help = $('help');
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  // ---- Keys ---------------------------------------------------------------------------------

  document.addEventListener('keydown', (event) => {
    const target = event.target;
    const typing = target.matches && target.matches('input[type=search], input[type=text], input[type=range], textarea, select');
    if (typing) {
      if (event.key === 'Escape' || event.key === 'Enter') {
        target.blur();
        list.focus();
        event.preventDefault();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const help = !$('help').hidden;
    if (event.key === 'Escape') { toggleHelp(false); return; }
    if (event.key === '?') { toggleHelp(); event.preventDefault(); return; }
    if (help) return;
    const card = visible[state.current];
    const handled = handleKey(event.key, card);
    if (handled !== false) event.preventDefault();
  });

  function handleKey(key, card) {
    switch (key) {
      case 'j': case 'ArrowDown': case 'ArrowRight': return setCurrent(state.current + 1);
      case 'k': case 'ArrowUp': case 'ArrowLeft': return setCurrent(state.current - 1);
      case 'Home': return setCurrent(0);
      case 'End': return setCurrent(visible.length - 1);
      case 'a': return decideAndAdvance(card, 'accepted', false);
      case 'r': case 'x': return decideAndAdvance(card, 'rejected', false);
      case 'A': return decideAndAdvance(card, 'accepted', true);
      case 'R': case 'X': return decideAndAdvance(card, 'rejected', true);
      case 'u': return undo();
      case 'm': return setMode(state.mode + 1);
      case 'M': return setMode(state.mode - 1);
      case '[': return setMix(Number($('mix').value) - 10);
      case ']': return setMix(Number($('mix').value) + 10);
      case '+': case '=': return zoomCurrent(1.5);
      case '-': case '_': return zoomCurrent(1 / 1.5);
      case '0': return zoomCurrent(0);
      case 'n': return jump(1, (c) => statusOf(c) === 'undecided');
      case 'p': return jump(-1, (c) => statusOf(c) === 'undecided');
      case 'N': return card && jump(1, (c) => c.outcome === card.outcome);
      case 'P': return card && jump(-1, (c) => c.outcome === card.outcome);
      case '/':
        $('path-filter').focus();
        return $('path-filter').select(); // typing replaces the old filter
      case 'f': return setStatus(STATUSES[(STATUSES.indexOf(state.status) + 1) % STATUSES.length]);
      case 'F': return setStatus(STATUSES[(STATUSES.indexOf(state.status) + 3) % STATUSES.length]);
      case 'g':
        state.collapse = !state.collapse;
        return refilter();
      default:
        if (key >= '1' && key <= String(MODES.length)) return setMode(Number(key) - 1);
        return false;
    }
  }

  /** a, r and their group forms decide, then move on to the next card, as triage goes. */
  function decideAndAdvance(card, value, wholeGroup) {
    if (!card || !DECIDABLE.has(card.outcome)) return;
    const before = visible.length;
    const targets = (wholeGroup || (state.collapse && !state.groupOnly)) && card.group
      ? groups.get(card.group) : [card];
    decide(targets, value);
    if (state.status !== 'all') refilter(null, true);
    if (visible.length === before && visible[state.current] === card) setCurrent(state.current + 1);
  }

  // ---- Helpers ------------------------------------------------------------------------------

  /** A shell word: as is when made of safe characters, else single-quoted (as merge-refs does). */
  function shellQuoted(word) {
    if (word !== '' && /^[A-Za-z0-9_\-./:=+@%,]+$/.test(word)) return word;
    return "'" + word.replace(/'/g, "'\\''") + "'";
  }

  function escapeHTML(text) {
    return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
  }

  // ---- Start --------------------------------------------------------------------------------

  buildHeader();
  setMix(50);
  visible = computeVisible();
  spacer.style.height = visible.length * cardHeight + 'px';
  $('visible-count').textContent = `${visible.length} of ${cards.length} cards shown`;
  empty.hidden = visible.length > 0;
  renderWindow();
  updateHeader();
  updateCounts();
  refreshExport();
  runFlicker();
  list.focus();
  performance.mark('review-first-screen');
  document.documentElement.dataset.ready = 'true';
})();
