// @ts-check
// Decisions, undo and the export. Decisions live in localStorage under the report's id; the
// export is the decision file that merge-refs --include-from reads: one line per accepted path,
// bound to the pixel digests reviewed (path, before, after, separated by tabs), after # comment
// lines. On a landed report (the merge already wrote the changes) it is the restore file
// instead: one line per rejected updated path, bound to the landed pixels and the earlier ones
// (path, landed, earlier), which merge-refs lands from the report's earlier references; a
// rejected added image has no earlier reference, so the page prints an rm line for it.
'use strict';

const storageKey = 'reference-review:' + data.id;
/** @type {Map<string, Decision>} path -> decision; absent: undecided */
const decisions = loadDecisions();
/** @type {UndoBatch[]} */
const undoStack = [];

/** @returns {Map<string, Decision>} */
function loadDecisions() {
  const known = new Set(cards.filter(isDecidable).map((c) => c.path));
  /** @type {Map<string, Decision>} */
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

/**
 * @param {Card} card
 * @returns {Status}
 */
const statusOf = (card) =>
  isDecidable(card) ? decisions.get(card.path) || 'undecided' : 'none';

/**
 * Sets `value` (undefined: undecided) on every decidable card of `targets`, and says so.
 * @param {Card[]} targets
 * @param {Decision | undefined} value
 * @returns {boolean} whether anything changed
 */
function decide(targets, value) {
  /** @type {UndoBatch} */
  const batch = [];
  for (const card of targets) {
    if (!isDecidable(card)) continue;
    const previous = decisions.get(card.path);
    if (previous === value) continue;
    batch.push([card.path, previous]);
    if (value) decisions.set(card.path, value);
    else decisions.delete(card.path);
  }
  if (batch.length === 0) return false;
  undoStack.push(batch);
  decisionsChanged();
  announce(`${decisionWord(value)} ${described(batch)}`);
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
  announce(`undone: ${described(batch)} ${batch.length === 1 ? 'is' : 'are'} `
    + (batch.length === 1 ? decisionWord(batch[0][1]) : 'back as they were'));
  const first = cards.find((card) => card.path === batch[0][0]);
  refilter(first, true);
}

/**
 * A decision as an announcement says it: on a landed report, what it does to the written image.
 * @param {Decision | undefined} value
 */
const decisionWord = (value) => !value ? 'undecided'
  : !landed ? value : value === 'accepted' ? 'kept' : 'rejected, to restore';

/**
 * The paths of a batch, for an announcement: the path, or how many.
 * @param {UndoBatch} batch
 */
const described = (batch) => batch.length === 1 ? batch[0][0] : `${batch.length} images`;

function decisionsChanged() {
  saveDecisions();
  for (const [id, element] of rendered) updateCardState(element, cardWithId(id));
  updateCounts();
  scheduleExport();
}

// ---- Announcements --------------------------------------------------------------------------

/**
 * Says `text` in the polite live region (#announcer), for screen readers. A repeat of the same
 * text alternates a trailing no-break space, so it is announced again.
 * @param {string} text
 */
function announce(text) {
  const region = $('announcer');
  region.textContent = region.textContent === text ? text + '\u00a0' : text;
}

// ---- Export ---------------------------------------------------------------------------------

const acceptedCards = () =>
  cards.filter((c) => isDecidable(c) && decisions.get(c.path) !== 'rejected');

function exportText() {
  if (landed) return restoreText();
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
 * @param {Card} card
 */
function exportLine(card) {
  const path = globEscaped(card.path);
  const bound = card.afterPixels && (card.outcome === 'added' || card.beforePixels);
  return bound ? `${path}\t${card.beforePixels || '-'}\t${card.afterPixels}` : path;
}

// ---- Restoring a landed report's rejected changes ---------------------------------------------

const rejectedCards = () =>
  cards.filter((c) => isDecidable(c) && decisions.get(c.path) === 'rejected');

/**
 * A rejected updated card of a landed report as a restore line: the path, the landed pixels
 * (what the package must still hold), the earlier pixels (what the report's earlier references
 * hold); null when merge-refs cannot restore it (an added image, or an earlier file that was not
 * a PNG the report could read).
 * @param {Card} card
 */
function restoreLine(card) {
  if (card.outcome !== 'updated' || !card.beforePixels || !card.afterPixels) return null;
  return `${globEscaped(card.path)}\t${card.afterPixels}\t${card.beforePixels}`;
}

/**
 * A package-relative path as the command names the destination: beside `.` the path itself.
 * @param {string} path
 */
function packagePath(path) {
  const root = (data.commandDestination || '.').replace(/\/+$/, '');
  return root === '.' ? path : `${root}/${path}`;
}

/**
 * What a landed report's rejections run: the restore command when a rejected path can be
 * restored, and an rm line for the rejected added images (merge-refs never deletes one file).
 */
function restoreCommands() {
  const rejected = rejectedCards();
  const restorable = rejected.filter((card) => restoreLine(card) !== null);
  const added = rejected.filter((card) => card.outcome === 'added');
  return {
    restore: restorable.length ? commandText : '',
    remove: added.length
      ? 'rm -- ' + added.map((card) => shellQuoted(packagePath(card.path))).join(' ') : '',
    restorable, added,
    unrestorable: rejected.filter((card) => card.outcome === 'updated' && !restoreLine(card)),
  };
}

function restoreText() {
  const { restore, remove, restorable, added, unrestorable } = restoreCommands();
  const rejected = restorable.length + added.length + unrestorable.length;
  let text = `# Landed changes rejected in review (${rejected} of ${decidableCount}): put them back.\n`;
  if (restore) {
    text += '# Restore the earlier references with:\n# ' + restore + '\n'
      + '# Each line binds a path to the pixels reviewed: path, TAB, the landed image\'s pixel\n'
      + '# digest, TAB, the earlier reference\'s. merge-refs restores a path only while the package\n'
      + '# still holds the landed image and the report\'s earlier references the earlier one.\n';
  }
  if (remove) {
    text += '# Added by the merge, with no earlier reference to restore; delete them with:\n'
      + '# ' + remove + '\n'
      + added.map((c) => `#   ${c.path}: landed pixels sha256 ${c.afterPixels || 'unknown'}\n`)
        .join('');
  }
  if (unrestorable.length) {
    text += '# The report holds no readable earlier image of these; restore them from version '
      + 'control:\n' + unrestorable.map((c) => `#   ${c.path}\n`).join('');
  }
  if (!rejected) text += '# Nothing to run: every landed change stays.\n';
  return text + restorable.map((c) => restoreLine(c) + '\n').join('');
}

/**
 * The white space an --include-from line drops at its ends: IncludeFilter.lineSpace (tab, the
 * ASCII line breaks, Unicode's space separators, U+0085, U+200B, U+2028, U+2029).
 */
const LINE_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200b'
  + '\\u2028\\u2029\\u202f\\u205f\\u3000';
/** A path's first or last character that the reader would not keep as it is. */
const EDGE = new RegExp(`^[#${LINE_SPACE}]|[${LINE_SPACE}]$`, 'g');

/**
 * The path as an --include-from line that matches only itself and reads back as itself: `*`,
 * `?` and `\` escaped, and so are a leading `#` (which starts a comment) and white space at
 * either end (which the reader drops). The grammar is IncludeFilter.parse's; both sides are
 * tested with the cases of Tests/ReferenceReviewTests/__Fixtures__/decision-file-cases.json.
 * @param {string} path
 */
const globEscaped = (path) => path.replace(/[\\*?]/g, '\\$&').replace(EDGE, '\\$&');

/** @type {string | null} */
let exportURL = null;
let exportTimer = 0;
function refreshExport() {
  clearTimeout(exportTimer);
  exportTimer = 0;
  const text = exportText();
  $('decision-file').textContent = text;
  if (landed) {
    const { restore, remove } = restoreCommands();
    $('command').textContent = restore || remove ? restore
      : '# nothing to run: reject a change to restore it';
    $('command').hidden = !restore && !!remove;
    $('remove-command').textContent = remove;
    $('remove-command').hidden = !remove;
  }
  if (exportURL) URL.revokeObjectURL(exportURL);
  exportURL = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  /** @type {HTMLAnchorElement} */ ($('download')).href = exportURL;
}
function scheduleExport() {
  if (!exportTimer) exportTimer = setTimeout(refreshExport, 120);
}

/**
 * The decision counts: accepted (kept), rejected and undecided are apart, so before any
 * decision nothing reads as accepted; then how many land (on a landed report: stay), which
 * the undecided ones do.
 */
function updateCounts() {
  let rejected = 0;
  for (const value of decisions.values()) if (value === 'rejected') rejected += 1;
  const accepted = decisions.size - rejected;
  const undecided = decidableCount - decisions.size;
  const [yes, no, outcome] = landed ? ['kept', 'to restore', 'stay'] : ['accepted', 'rejected', 'land'];
  $('accepted-count').textContent = `${accepted} ${yes} · ${rejected} ${no} · ${undecided} `
    + `undecided — ${decidableCount - rejected} of ${decidableCount} ${outcome}`;
}
