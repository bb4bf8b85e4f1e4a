// @ts-check
// A card's image panes: the comparison modes, and zoom and pan (one view per card, shared by
// its panes, down to a pixel grid).
'use strict';

/**
 * The panes of a card for the current mode; every pane shows the same canvas.
 * @param {Card} card
 * @returns {HTMLElement}
 */
function buildPanes(card) {
  const row = make('div', 'pane-row');
  const canvas = canvasOf(card);
  /**
   * @param {string} label HTML
   * @param {Element[]} layers
   * @param {Element | null} [extra]
   * @param {string} [captionClass]
   */
  const pane = (label, layers, extra, captionClass) => {
    const element = make('div', 'pane');
    const caption = make('div', 'pane-label' + (captionClass ? ' ' + captionClass : ''));
    caption.innerHTML = label;
    caption.title = caption.textContent || '';
    const viewport = make('div', 'viewport');
    for (const layer of layers) viewport.append(layer);
    if (extra) viewport.append(extra);
    viewport.append(make('div', 'grid'));
    element.append(caption, viewport);
    row.append(element);
    return element;
  };
  /**
   * @param {Element[]} content
   * @param {string} [className]
   */
  const layer = (content, className) => {
    const element = make('div', 'layer' + (className ? ' ' + className : ''));
    const stage = make('div', 'stage');
    stage.style.width = canvas.width + 'px';
    stage.style.height = canvas.height + 'px';
    for (const item of content) stage.append(item);
    element.append(stage);
    return element;
  };
  /**
   * @param {ReviewImage} ref
   * @param {string} alt
   */
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
  /**
   * @param {string} name HTML
   * @param {ReviewImage | null | undefined} ref
   */
  const described = (name, ref) => `<b>${name}</b> ${ref ? size(ref) : ''}`;

  // A new variant file comes with its fallback as "before": what its platform used until now.
  if ((card.outcome === 'added' && !card.before) || card.outcome === 'orphan'
    || card.outcome === 'redundant' || !card.before || !card.after) {
    const only = card.after || card.before;
    const name = card.outcome === 'added' ? 'new'
      : card.outcome === 'orphan' ? 'current (no run produced it)'
        : card.outcome === 'redundant' ? 'current (matches its fallback)'
          : card.after ? 'after' : 'current';
    if (only) pane(described(name, only), [layer([image(only, name)])]);
    if (card.outcome === 'conflict') {
      for (const rival of card.rivals || []) {
        // Runs differ at the end of their labels (host, pid): a long label loses its start.
        if (rival.image) {
          pane('\u200e' + described(escapeHTML(rival.label), rival.image) + '\u200e',
            [layer([image(rival.image, rival.label)])], null, 'cut-start');
        }
      }
    }
    if (!row.childElementCount) row.append(make('p', 'missing', 'No image to show.'));
    return row;
  }

  const mode = MODES[state.mode].key;
  const beforeImage = card.before;
  const afterImage = card.after;
  const beforeName = card.outcome === 'added' ? 'fallback' : 'before';
  const before = () => image(beforeImage, beforeName);
  const after = () => image(afterImage, 'after');
  const sizes = `${beforeName} ${size(beforeImage)}, after ${size(afterImage)}`;
  if (mode === 'side') {
    pane(described(beforeName, beforeImage), [layer([before()])]);
    pane(described('after', afterImage), [layer([after()])]);
    // An updated variant file: also what its variant would show without it.
    const fallback = card.fallback;
    if (fallback) {
      pane(described(`fallback ${escapeHTML(fileName(fallback.path))}`, fallback.image),
        [layer([image(fallback.image, 'fallback')])]);
    }
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
        [layer([after(), boxes(regions, card.regionKinds || [], canvas)])]);
    }
  }
  return row;
}

/**
 * The changed regions as rectangles over the canvas, each labelled with its kind (the label
 * also its tooltip, whole).
 * @param {[number, number, number, number][]} regions
 * @param {RegionKind[]} kinds one per region, in the same order; fewer in older reports
 * @param {{ width: number, height: number }} canvas
 */
function boxes(regions, kinds, canvas) {
  const namespace = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(namespace, 'svg');
  svg.setAttribute('width', String(canvas.width));
  svg.setAttribute('height', String(canvas.height));
  svg.setAttribute('viewBox', `0 0 ${canvas.width} ${canvas.height}`);
  regions.forEach(([x, y, width, height], index) => {
    const kind = kinds[index];
    const rect = document.createElementNS(namespace, 'rect');
    rect.setAttribute('x', String(x));
    rect.setAttribute('y', String(y));
    rect.setAttribute('width', String(width));
    rect.setAttribute('height', String(height));
    if (kind) {
      rect.setAttribute('class', `kind-${kind.kind}`);
      rect.dataset.kind = kind.kind;
      const title = document.createElementNS(namespace, 'title');
      title.textContent = kind.label;
      rect.append(title);
    }
    svg.append(rect);
    if (!kind) return;
    // Above the box, or below it when the box starts at the canvas's top edge.
    const label = document.createElementNS(namespace, 'text');
    label.setAttribute('class', `kind-label kind-${kind.kind}${y > 0 ? '' : ' below'}`);
    label.setAttribute('x', String(x));
    label.setAttribute('y', String(y > 0 ? y : y + height));
    label.textContent = kind.label;
    svg.append(label);
  });
  return svg;
}

/**
 * The union of the card's image sizes: a size change shows both on one canvas.
 * @param {Card} card
 */
function canvasOf(card) {
  /** @type {ReviewImage[]} */
  const images = [];
  for (const image of [card.before, card.after, card.difference, card.fallback && card.fallback.image]
    .concat((card.rivals || []).map((rival) => rival.image))) {
    if (image) images.push(image);
  }
  return {
    width: Math.max(1, ...images.map((image) => image.width)),
    height: Math.max(1, ...images.map((image) => image.height)),
  };
}

function rebuildPanes() {
  for (const [id, element] of rendered) {
    const card = cardWithId(id);
    if (card.outcome !== 'updated') continue;
    /** @type {HTMLElement} */ (element.querySelector('.pane-row')).replaceWith(buildPanes(card));
    layoutCard(element);
  }
}

// ---- Comparison modes -----------------------------------------------------------------------

/** @param {number} index */
function setMode(index) {
  state.mode = (index + MODES.length) % MODES.length;
  try { localStorage.setItem('reference-review:mode', MODES[state.mode].key); } catch (error) { /* optional */ }
  rebuildPanes();
  updateHeader();
  runFlicker();
}

/** @param {number} value the swipe position or opacity, 0 to 100 */
function setMix(value) {
  const mix = Math.max(0, Math.min(100, value));
  inputOf('mix').value = String(mix);
  document.body.style.setProperty('--mix', String(mix));
}

let flickerTimer = 0;
function runFlicker() {
  clearInterval(flickerTimer);
  document.body.classList.remove('flick');
  if (MODES[state.mode].key === 'flicker') {
    flickerTimer = setInterval(() => document.body.classList.toggle('flick'), 600);
  }
}

// ---- Zoom and pan, one view per card shared by its panes ------------------------------------

/**
 * @param {HTMLElement} viewport
 * @param {{ width: number, height: number }} canvas
 */
function fitScale(viewport, canvas) {
  const fit = Math.min(viewport.clientWidth / canvas.width, viewport.clientHeight / canvas.height);
  return fit >= 1 ? Math.floor(fit) : fit; // whole multiples keep pixels square when enlarged
}

/**
 * @param {Card} card
 * @param {HTMLElement} viewport
 * @returns {View}
 */
function viewFor(card, viewport) {
  const canvas = canvasOf(card);
  const saved = views.get(card.id);
  if (saved) return saved;
  return { s: fitScale(viewport, canvas) || 1, cx: canvas.width / 2, cy: canvas.height / 2 };
}

/** @param {HTMLElement} element a card */
function layoutCard(element) {
  const card = cardWithId(Number(element.dataset.id));
  for (const viewport of element.querySelectorAll('.viewport')) {
    const box = /** @type {HTMLElement} */ (viewport);
    const view = viewFor(card, box);
    const tx = box.clientWidth / 2 - view.cx * view.s;
    const ty = box.clientHeight / 2 - view.cy * view.s;
    for (const stage of box.querySelectorAll('.stage')) {
      /** @type {HTMLElement} */ (stage).style.transform =
        `translate(${tx}px, ${ty}px) scale(${view.s})`;
      // The kind labels keep their size on screen at every zoom (review.css).
      /** @type {HTMLElement} */ (stage).style.setProperty('--zoom', String(view.s));
    }
    const grid = /** @type {HTMLElement} */ (box.querySelector('.grid'));
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

/**
 * Scales a card's view by `factor`, keeping the image point under (x, y) (default: the
 * viewport's centre) under it.
 * @param {Card} card
 * @param {HTMLElement} viewport
 * @param {number} factor
 * @param {number} [x]
 * @param {number} [y]
 */
function zoom(card, viewport, factor, x, y) {
  const view = viewFor(card, viewport);
  const canvas = canvasOf(card);
  const fit = fitScale(viewport, canvas) || 1;
  const scale = Math.max(Math.min(fit, 1) / 4, Math.min(MAX_SCALE, view.s * factor));
  if (x === undefined || y === undefined) {
    x = viewport.clientWidth / 2;
    y = viewport.clientHeight / 2;
  }
  const ix = view.cx + (x - viewport.clientWidth / 2) / view.s;
  const iy = view.cy + (y - viewport.clientHeight / 2) / view.s;
  views.set(card.id, {
    s: scale,
    cx: ix - (x - viewport.clientWidth / 2) / scale,
    cy: iy - (y - viewport.clientHeight / 2) / scale,
  });
  relayout(card);
}

/** @param {Card} card */
function relayout(card) {
  const element = rendered.get(card.id);
  if (element) layoutCard(element);
}

/** The current card's first viewport, when the card is in the document. */
function currentViewport() {
  const card = visible[state.current];
  const element = card && rendered.get(card.id);
  const viewport = element && /** @type {HTMLElement | null} */ (element.querySelector('.viewport'));
  return viewport ? { card, viewport } : null;
}

/** @param {number} factor 0: fit */
function zoomCurrent(factor) {
  const current = currentViewport();
  if (!current) return;
  if (factor === 0) {
    views.delete(current.card.id);
    relayout(current.card);
  } else {
    zoom(current.card, current.viewport, factor);
  }
}

function updateZoomLabel() {
  const current = currentViewport();
  if (!current) { $('zoom-level').textContent = ''; return; }
  const view = viewFor(current.card, current.viewport);
  $('zoom-level').textContent =
    `${Math.round(view.s * 100)}%${views.has(current.card.id) ? '' : ' (fit)'}`
    + (view.s >= MIN_GRID_SCALE ? ', pixel grid' : '');
}

/**
 * The viewport an event happened in, and its card.
 * @param {Event} event
 */
function viewportOf(event) {
  const viewport = /** @type {HTMLElement | null} */ (
    /** @type {Element} */ (event.target).closest('.viewport'));
  const card = viewport && cardOf(viewport);
  return viewport && card ? { card, viewport } : null;
}

/** Ctrl+wheel and double-click zoom, dragging pans; an image that does not load says so. */
function installPanes() {
  spacer.addEventListener('wheel', (event) => {
    const hit = viewportOf(event);
    if (!hit || !(event.ctrlKey || event.metaKey || event.altKey)) return;
    event.preventDefault();
    const rect = hit.viewport.getBoundingClientRect();
    zoom(hit.card, hit.viewport, Math.exp(-event.deltaY / 300),
      event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  spacer.addEventListener('dblclick', (event) => {
    const hit = viewportOf(event);
    if (!hit) return;
    const rect = hit.viewport.getBoundingClientRect();
    zoom(hit.card, hit.viewport, event.shiftKey ? 0.5 : 2,
      event.clientX - rect.left, event.clientY - rect.top);
  });

  /** @type {{ card: Card, viewport: HTMLElement, x: number, y: number, view: View } | null} */
  let drag = null;
  spacer.addEventListener('pointerdown', (event) => {
    const hit = viewportOf(event);
    if (!hit || event.button !== 0) return;
    drag = { ...hit, x: event.clientX, y: event.clientY, view: { ...viewFor(hit.card, hit.viewport) } };
    hit.viewport.classList.add('dragging');
    hit.viewport.setPointerCapture(event.pointerId);
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
    const target = /** @type {Element} */ (event.target);
    if (target.tagName !== 'IMG') return;
    const pane = target.closest('.pane');
    const label = pane && pane.querySelector('.pane-label');
    if (!label) return;
    label.append(make('span', 'missing', ` — could not load ${target.getAttribute('src')}`));
  }, true);
}
