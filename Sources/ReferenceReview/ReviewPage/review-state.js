// @ts-check
// The review page: reads window.REFERENCE_REVIEW (review-data.js, written by merge-refs --report)
// and shows one card per added, updated, conflicting or orphaned reference image.
//
// The page is plain scripts sharing one global scope, loaded in this order (index.html lists
// them; a single-file report inlines them in the same order): review-state.js (the data, the
// filters' state), review-decisions.js (decisions, undo, the export), review-list.js (the
// virtual list and its cards), review-panes.js (comparison modes, zoom and pan),
// review-keys.js (the header's controls, keys and help), review-boot.js (start). Every file
// only declares; review-boot.js runs the page.
'use strict';

performance.mark('review-script-start');

/**
 * The element with `id`; the page's own markup holds every id asked for.
 * @param {string} id
 * @returns {HTMLElement}
 */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * A form control of the page's markup.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
const inputOf = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/** @type {{ key: string, name: string }[]} */
const MODES = [
  { key: 'side', name: 'side by side' },
  { key: 'swipe', name: 'swipe' },
  { key: 'onion', name: 'onion skin' },
  { key: 'flicker', name: 'flicker' },
  { key: 'overlay', name: 'difference overlay' },
  { key: 'boxes', name: 'changed regions' },
];
/** @type {Outcome[]} */
const OUTCOMES = ['added', 'updated', 'conflict', 'unstable', 'orphan', 'redundant'];
/** @type {Set<Outcome>} */
const DECIDABLE = new Set(['added', 'updated']);
/** @type {StatusFilter[]} */
const STATUSES = ['all', 'undecided', 'accepted', 'rejected'];
const MIN_GRID_SCALE = 6; // screen pixels per image pixel from which the pixel grid shows
const MAX_SCALE = 64;

// ---- Data -----------------------------------------------------------------------------------

/**
 * Why the report cannot be shown (review-data.js missing or of another version), or null.
 * @param {ReviewData | undefined} report
 * @returns {string | null}
 */
function dataProblemOf(report) {
  if (!report) {
    return 'review-data.js did not load. Open index.html inside the folder merge-refs --report '
      + 'wrote, with review-data.js beside it.';
  }
  if (report.version !== 1 || !Array.isArray(report.cards)) {
    return `review-data.js has version ${report.version}; this page reads version 1. Write the `
      + 'report again with the same merge-refs.';
  }
  return null;
}

const dataProblem = dataProblemOf(window.REFERENCE_REVIEW);
/** @type {ReviewData} The report; an empty one when it cannot be read (the page says why). */
const data = !dataProblem && window.REFERENCE_REVIEW
  ? window.REFERENCE_REVIEW : { version: 1, id: '', cards: [], decisionFile: '' };

/**
 * The variant group a card belongs to: its variant, or '' for the base (which sorts first).
 * @param {ReviewCard} card
 */
const variantOf = (card) => card.variant || '';
/**
 * Whether the report holds a variant file's card: only then are the cards grouped by variant
 * under headings, and say what they compare with; a report without one looks as it always did.
 */
const groupsByVariant = data.cards.some((card) => !!card.variant);

/** @type {Card[]} Every card: the base's, then each variant's by name; each group in path order. */
const cards = data.cards.map((card) => Object.assign(card, { lowerPath: card.path.toLowerCase() }))
  .sort((a, b) => {
    const [va, vb] = [variantOf(a), variantOf(b)];
    if (va !== vb) return va < vb ? -1 : 1;
    return a.path < b.path ? -1 : a.path > b.path ? 1 : a.id - b.id;
  });
/** @type {Map<string, Card[]>} group -> its cards, the identical changes */
const groups = new Map();
for (const card of cards) {
  if (!card.group) continue;
  let members = groups.get(card.group);
  if (!members) groups.set(card.group, (members = []));
  members.push(card);
}
/** @type {Map<string, Card[]>} change group -> its cards, changed the same way */
const changeGroups = new Map();
for (const card of cards) {
  if (!card.changeGroup) continue;
  let members = changeGroups.get(card.changeGroup);
  if (!members) changeGroups.set(card.changeGroup, (members = []));
  members.push(card);
}
/** @type {{ key: ChangeKindName, name: string }[]} The kind filter's kinds, in its order. */
const KINDS = [
  { key: 'moved', name: 'moved' },
  { key: 'recoloured', name: 'recoloured' },
  { key: 'added', name: 'added' },
  { key: 'removed', name: 'removed' },
  { key: 'antiAliasingOrNoise', name: 'anti-aliasing or noise only' },
  { key: 'resized', name: 'resized' },
  { key: 'changed', name: 'changed' },
];
/**
 * Whether a card has a region of a kind.
 * @param {ReviewCard} card
 * @param {ChangeKindName} kind
 */
const hasKind = (card, kind) => (card.regionKinds || []).some((region) => region.kind === kind);
/**
 * The cards changed the same way as a card, itself included; just the card when it has none.
 * @param {Card} card
 * @returns {Card[]}
 */
const changeGroupOf = (card) => (card.changeGroup && changeGroups.get(card.changeGroup)) || [card];

/** @type {Map<number, Card>} */
const byId = new Map(cards.map((card) => [card.id, card]));
/** Whether the merge already wrote the changes: decisions then keep or restore, not land. */
const landed = data.changes === 'landed';
/** On a report landed in part, the paths a failed write did not reach: they are as they were. */
const notWritten = new Set(data.notWritten || []);
/**
 * Whether a card takes a decision: an added or updated path, except, on a landed report, one
 * the merge did not write (there is nothing to keep or restore; rerunning the merge lands it).
 * @param {Card} card
 */
const isDecidable = (card) =>
  DECIDABLE.has(card.outcome) && !(landed && notWritten.has(card.path));
const decidableCount = cards.filter(isDecidable).length;
const commandText = (data.command || []).map(shellQuoted).join(' ');
/** The file the page exports, named by the review data (ReviewData.swift owns the name). */
const decisionFile = data.decisionFile;

/**
 * The other cards of a card's group, itself included; just the card when it has none.
 * @param {Card} card
 * @returns {Card[]}
 */
const groupOf = (card) => (card.group && groups.get(card.group)) || [card];

// ---- Filters and the view's state -----------------------------------------------------------

const state = {
  mode: Math.max(0, MODES.findIndex((m) => m.key === storedMode())),
  /** @type {Set<Outcome>} */
  outcomes: new Set(OUTCOMES),
  /** @type {StatusFilter} */
  status: 'all',
  path: '',
  collapse: false,
  /** @type {string | null} the group shown alone ("show them"), or null */
  groupOnly: null,
  /** @type {ChangeKindName | 'all'} the kind a card must have a region of */
  kind: /** @type {ChangeKindName | 'all'} */ ('all'),
  /** @type {string | null} the change group shown alone, or null */
  changeGroupOnly: /** @type {string | null} */ (null),
  /** the index of the current card in `visible` */
  current: 0,
};
/** @type {Card[]} the cards the filters let through, in order */
let visible = [];
/** @type {Map<number, View>} card id -> its view once zoomed or panned; absent: fit */
const views = new Map();

/** @returns {string | null} */
function storedMode() {
  try { return localStorage.getItem('reference-review:mode'); } catch (error) { return null; }
}

/** @returns {Card[]} */
function computeVisible() {
  const query = state.path.toLowerCase();
  let list = cards.filter((card) =>
    state.outcomes.has(card.outcome)
    && (!query || card.lowerPath.includes(query))
    && (state.status === 'all' || statusOf(card) === state.status)
    && (!state.groupOnly || card.group === state.groupOnly)
    && (state.kind === 'all' || hasKind(card, state.kind))
    && (!state.changeGroupOnly || card.changeGroup === state.changeGroupOnly));
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

// ---- Helpers --------------------------------------------------------------------------------

/**
 * A shell word: as is when made of safe characters, else single-quoted (as merge-refs does).
 * @param {string} word
 */
function shellQuoted(word) {
  if (word !== '' && /^[A-Za-z0-9_\-./:=+@%,]+$/.test(word)) return word;
  return "'" + word.replace(/'/g, "'\\''") + "'";
}

/** @param {string} text */
function escapeHTML(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * A new element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
const make = (tag, className, text) => {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
};
/**
 * A variant group's name as the page shows it.
 * @param {string} variant '' for the base
 */
const variantName = (variant) => variant || 'base';

/**
 * What a card's "before" is, in words: "compared with bars@@linux.png (fallback of
 * linux-arm64)", or its own previous file; null when it shows no file of the package.
 * @param {ReviewCard} card
 */
function comparedWithText(card) {
  const compared = card.comparedWith;
  if (!compared) return null;
  const name = fileName(compared.path);
  if (compared.fallback) {
    return `compared with ${name} (fallback of ${variantName(variantOf(card))})`;
  }
  const fallback = card.fallback ? `; its fallback ${fileName(card.fallback.path)} shown too` : '';
  return `compared with ${name} (its previous file)${fallback}`;
}

/**
 * A path's last component.
 * @param {string} path
 */
const fileName = (path) => path.slice(path.lastIndexOf('/') + 1);

/** @param {ReviewImage} image */
const size = (image) => `${image.width}×${image.height}`;
/** @param {number} value */
const number = (value) => value.toLocaleString('en-US');

/**
 * The card with `id`, one the page made.
 * @param {number} id
 */
const cardWithId = (id) => /** @type {Card} */ (byId.get(id));
