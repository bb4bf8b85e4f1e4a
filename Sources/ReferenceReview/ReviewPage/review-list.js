// @ts-check
// The virtual list: only the cards near the viewport exist in the document (every card has the
// same height, so card i sits at i × height in a spacer as tall as the list), and their images
// are only asked for then; the data itself is metadata, so a report of 10,000 changes opens at
// once.
'use strict';

const list = $('list');
const spacer = $('spacer');
const cardHeight =
  parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--card-h')) || 520;
/** @type {Map<number, HTMLElement>} card id -> element, only for cards near the viewport */
const rendered = new Map();
const empty = make('p', 'empty', 'No card matches the filters.');

/**
 * Recomputes the list, keeping `focus` (or the current card) current when it is still shown.
 * When it is not: after a decision hid it (`stay`), the card now in its place (the next one);
 * after a filter changed, the first card.
 * @param {Card | null} [focus]
 * @param {boolean} [stay]
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
  showListSize();
  scrollToCurrent();
  renderWindow();
  updateHeader();
}

/** The spacer's height, the count of cards shown, and the note when none is. */
function showListSize() {
  spacer.style.height = visible.length * cardHeight + 'px';
  $('visible-count').textContent = `${visible.length} of ${cards.length} cards shown`;
  empty.hidden = visible.length > 0;
  showVariantGroups();
}

/**
 * The variant groups the filters let through, in list order: each one's first index in
 * `visible` and its count.
 * @returns {{ variant: string, first: number, count: number }[]}
 */
function variantGroups() {
  /** @type {{ variant: string, first: number, count: number }[]} */
  const result = [];
  visible.forEach((card, index) => {
    const last = result[result.length - 1];
    if (last && last.variant === variantOf(card)) last.count += 1;
    else result.push({ variant: variantOf(card), first: index, count: 1 });
  });
  return result;
}

/** The header's variant groups, each a button to its first card; hidden without variants. */
function showVariantGroups() {
  const nav = $('variant-groups');
  nav.hidden = !groupsByVariant;
  if (!groupsByVariant) return;
  nav.replaceChildren(make('span', 'variant-groups-label', 'variants:'));
  for (const group of variantGroups()) {
    const button = make('button', 'variant-group', `${variantName(group.variant)} (${group.count})`);
    button.type = 'button';
    button.title = `Go to the first card of ${variantName(group.variant)}`;
    button.addEventListener('click', () => setCurrent(group.first));
    nav.append(button);
  }
}

/**
 * The heading above a card that starts its variant group in `visible`: the group's name and
 * how many of its cards are shown; null inside a group, and in a report without variants.
 * @param {Card} card
 * @param {number} index its place in `visible`
 */
function variantHeading(card, index) {
  const variant = variantOf(card);
  if (!groupsByVariant || (index > 0 && variantOf(visible[index - 1]) === variant)) return null;
  let count = 0;
  while (index + count < visible.length && variantOf(visible[index + count]) === variant) {
    count += 1;
  }
  return make('h2', 'variant-heading',
    `${variant ? 'variant ' + variant : 'base'}: ${count} card${count === 1 ? '' : 's'}`);
}

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

/** The list's own events: scrolling renders the cards that come near. */
function installList() {
  list.appendChild(empty);
  list.addEventListener('scroll', scheduleRender, { passive: true });
  window.addEventListener('resize', () => {
    renderWindow();
    for (const element of rendered.values()) layoutCard(element);
  });
  spacer.addEventListener('click', (event) => {
    const target = /** @type {Element} */ (event.target);
    const card = cardOf(target);
    if (!card) return;
    const index = visible.indexOf(card);
    if (index >= 0 && index !== state.current) setCurrent(index);
    const button = target.closest('button');
    if (!button) return;
    if (button.classList.contains('accept')) decideCard(card, 'accepted', false);
    else if (button.classList.contains('reject')) decideCard(card, 'rejected', false);
    else if (button.classList.contains('group-accept')) decideCard(card, 'accepted', true);
    else if (button.classList.contains('group-reject')) decideCard(card, 'rejected', true);
    else if (button.classList.contains('group-show')) {
      state.groupOnly = state.groupOnly ? null : card.group || null;
      refilter(card);
    }
    else if (button.classList.contains('change-group-accept')) decideChangeGroup(card, 'accepted');
    else if (button.classList.contains('change-group-reject')) decideChangeGroup(card, 'rejected');
    else if (button.classList.contains('change-group-show')) {
      state.changeGroupOnly = state.changeGroupOnly ? null : card.changeGroup || null;
      refilter(card);
    }
  });
}

function scrollToCurrent() {
  const top = state.current * cardHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + cardHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + cardHeight - list.clientHeight;
  }
}

/** @param {number} index */
function setCurrent(index) {
  if (visible.length === 0) return;
  state.current = Math.max(0, Math.min(visible.length - 1, index));
  scrollToCurrent();
  renderWindow();
  updateHeader();
}

/**
 * Moves to the next card after the current one (in `step` direction) that `test` accepts.
 * @param {number} step
 * @param {(card: Card) => boolean} test
 */
function jump(step, test) {
  for (let i = state.current + step; i >= 0 && i < visible.length; i += step) {
    if (test(visible[i])) return setCurrent(i);
  }
}

/**
 * The card an element belongs to.
 * @param {Element} target
 * @returns {Card | null}
 */
const cardOf = (target) => {
  const element = target.closest && /** @type {HTMLElement | null} */ (target.closest('.card'));
  return element ? byId.get(Number(element.dataset.id)) || null : null;
};

/**
 * The cards a decision on `card` covers: its group when asked for, or when one card stands
 * for its group ("one card per identical change").
 * @param {Card} card
 * @param {boolean} wholeGroup
 */
const decisionTargets = (card, wholeGroup) =>
  (wholeGroup || (state.collapse && !state.groupOnly)) && card.group ? groupOf(card) : [card];

/**
 * Decides every card changed the same way as `card` (its change group): each member's export
 * line still binds its own path to its own pixel digests.
 * @param {Card} card
 * @param {Decision} value
 */
function decideChangeGroup(card, value) {
  if (!isDecidable(card)) return;
  decide(changeGroupOf(card), value);
  if (state.status !== 'all') refilter(null, true);
}

/**
 * A decision from a button: a second press of the same decision undoes it.
 * @param {Card | null} card
 * @param {Decision} value
 * @param {boolean} wholeGroup
 */
function decideCard(card, value, wholeGroup) {
  if (!card || !isDecidable(card)) return;
  const targets = decisionTargets(card, wholeGroup);
  const next = !wholeGroup && targets.length === 1 && statusOf(card) === value ? undefined : value;
  decide(targets, next);
  if (state.status !== 'all') refilter(null, true);
}

/**
 * a, r and their group forms decide, then move on to the next card, as triage goes.
 * @param {Card | undefined} card
 * @param {Decision} value
 * @param {boolean} wholeGroup
 */
function decideAndAdvance(card, value, wholeGroup) {
  if (!card || !isDecidable(card)) return;
  const before = visible.length;
  decide(decisionTargets(card, wholeGroup), value);
  if (state.status !== 'all') refilter(null, true);
  if (visible.length === before && visible[state.current] === card) setCurrent(state.current + 1);
}

// ---- Cards ----------------------------------------------------------------------------------

/**
 * @param {Card} card
 * @param {number} index its place in `visible`
 */
function buildCard(card, index) {
  const element = make('section', `card ${card.outcome}`);
  element.dataset.id = String(card.id);
  element.dataset.path = card.path;
  element.dataset.outcome = card.outcome;
  const heading = variantHeading(card, index);
  if (heading) element.append(heading);

  const head = make('div', 'card-head');
  if (isDecidable(card)) {
    const buttons = make('span', 'decide');
    const accept = make('button', 'accept', landed ? '✓ keep' : '✓ accept');
    accept.type = 'button';
    accept.title = landed ? 'Keep as landed (a)' : 'Accept (a)';
    const reject = make('button', 'reject', '✗ reject');
    reject.type = 'button';
    reject.title = landed ? 'Reject: put the earlier reference back (r)' : 'Reject (r)';
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
  const compared = groupsByVariant ? comparedWithText(card) : null;
  if (compared) note.append(make('span', 'compared-with', compared));
  if (card.before && card.after && size(card.before) !== size(card.after)) {
    note.append(make('span', 'size-note',
      `size changed: before ${size(card.before)}, after ${size(card.after)}`));
  }
  const kinds = kindsText(card);
  if (kinds) note.append(make('span', 'kinds-note', kinds));
  const changed = card.changeGroup ? changeGroupOf(card) : null;
  // Offered when the change group holds more than the identical change's own group.
  if (changed && changed.length > 1 && changed.length > groupOf(card).length) {
    const group = make('span', 'change-group-note',
      `${card.changeGroupLabel}: ${changed.length} images changed the same way`);
    const accept = make('button', 'change-group-accept', `Accept the ${changed.length}`);
    const reject = make('button', 'change-group-reject', `Reject the ${changed.length}`);
    const show = make('button', 'change-group-show',
      state.changeGroupOnly ? 'show every card' : 'show them');
    for (const button of [accept, reject, show]) button.type = 'button';
    note.append(group, accept, reject, show);
  }
  const members = card.group ? groupOf(card) : null;
  if (members && members.length > 1) {
    const group = make('span', 'group-note');
    const accept = make('button', 'group-accept', `Accept all ${members.length} (Shift+A)`);
    const reject = make('button', 'group-reject', `Reject all ${members.length} (Shift+R)`);
    const show = make('button', 'group-show', state.groupOnly ? 'show every card' : 'show them');
    for (const button of [accept, reject, show]) button.type = 'button';
    note.append(group, accept, reject, show);
  }
  if (landed && notWritten.has(card.path)) {
    note.append(make('span', 'not-written',
      'Not written: a write failed before the merge reached this file, so it is as it was. '
      + 'Fix the problem above, then run the merge again.'));
  }
  if (card.outcome === 'conflict') {
    note.append(make('span', '',
      'Sources disagree: nothing lands for this path until one run is chosen (or it is left out).'));
  } else if (card.outcome === 'unstable') {
    note.append(make('span', '',
      'Replicated runs of this test rendered different pixels: "before" is one run\'s render, '
      + '"after" the other\'s. Neither lands; make the render deterministic.'));
  } else if (card.outcome === 'orphan') {
    note.append(make('span', '', landed
      ? 'No complete run produced this reference: this merge deleted it if it ran with --prune, '
        + 'and kept it otherwise.'
      : 'No complete run produced this reference; it stays, and is only pruned by merge-refs --prune.'));
  } else if (card.outcome === 'redundant') {
    note.append(make('span', '', landed
      ? 'This variant now renders what its fallback holds: this merge deleted the file if it ran '
        + 'with --prune, and kept it otherwise.'
      : 'This variant now renders what its fallback holds, so its file is not needed; it stays, '
        + 'and is only pruned by merge-refs --prune.'));
  }
  if (note.childElementCount) element.append(note);

  element.append(buildPanes(card));
  updateCardState(element, card);
  return element;
}

/**
 * The kinds of a card's regions in words, each once with how many regions have it:
 * "moved by (2, 1) · recoloured #16A34A → #9333EA (2 regions)"; '' without kinds.
 * @param {ReviewCard} card
 */
function kindsText(card) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const region of card.regionKinds || []) {
    counts.set(region.label, (counts.get(region.label) || 0) + 1);
  }
  return [...counts].map(([label, count]) => (count > 1 ? `${label} (${count} regions)` : label))
    .join(' · ');
}

/**
 * What a card's status label says: on a report of pending changes, whether it lands; on a
 * landed report, what happened and what the export will do.
 * @param {Card} card
 * @param {Status} status
 */
function statusLabel(card, status) {
  if (landed && notWritten.has(card.path)) return 'not written';
  if (status === 'none') return 'not decidable here';
  if (!landed) return status === 'undecided' ? 'undecided (lands)' : status;
  if (status === 'undecided') return 'landed';
  if (status === 'accepted') return 'kept as landed';
  return card.outcome === 'added' ? 'to remove' : 'to restore';
}

/**
 * Shows a card's decision: its class, status label, pressed buttons and group note.
 * @param {HTMLElement} element
 * @param {Card} card
 */
function updateCardState(element, card) {
  const status = statusOf(card);
  element.classList.toggle('accepted', status === 'accepted');
  element.classList.toggle('rejected', status === 'rejected');
  const label = /** @type {HTMLElement} */ (element.querySelector('.state'));
  label.className = 'state ' + status;
  label.textContent = statusLabel(card, status);
  const accept = element.querySelector('.decide .accept');
  const reject = element.querySelector('.decide .reject');
  if (accept && reject) {
    accept.setAttribute('aria-pressed', String(status === 'accepted'));
    reject.setAttribute('aria-pressed', String(status === 'rejected'));
  }
  const note = element.querySelector('.group-note');
  if (note) {
    const members = groupOf(card);
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
