// @ts-check
// The header's controls, the keyboard and the help panel. Single-character keys can be turned
// off (a switch in the header, remembered in this browser): then only the buttons, arrows,
// Home, End and Escape act.
'use strict';

/** @type {[string, string][]} keys (separated by two spaces) and what they do */
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

const shortcutsKey = 'reference-review:shortcuts';

/** Whether single-character keys act: on unless turned off in this browser. */
function storedShortcuts() {
  try { return localStorage.getItem(shortcutsKey) !== 'off'; } catch (error) { return true; }
}

/** @param {boolean} on */
function setShortcuts(on) {
  inputOf('shortcuts-toggle').checked = on;
  document.body.dataset.shortcuts = on ? 'on' : 'off';
  try { localStorage.setItem(shortcutsKey, on ? 'on' : 'off'); } catch (error) { /* optional */ }
}

const shortcutsOn = () => inputOf('shortcuts-toggle').checked;

// ---- Header ---------------------------------------------------------------------------------

/** What a landed merge wrote, as counted: "1 added and 2 updated references"; '' for nothing. */
function writtenCounts() {
  const counts = data.counts || {};
  const written = [[counts.added || 0, 'added'], [counts.updated || 0, 'updated']]
    .filter(([count]) => Number(count) > 0).map(([count, word]) => `${count} ${word}`);
  if (!written.length) return '';
  const total = (counts.added || 0) + (counts.updated || 0);
  return `${written.join(' and ')} ${total === 1 ? 'reference' : 'references'}`;
}

/**
 * What the first screen says for each state of the changes, as applying left the package;
 * nothing for a landed merge that wrote nothing.
 */
const CHANGES_STATES = {
  landed: () => writtenCounts() && `Landed: merge-refs wrote ${writtenCounts()} into the `
    + 'package. Undecided and kept changes stay; reject what is wrong, then run the command '
    + `below with the downloaded ${decisionFile} to put the earlier references back.`,
  partial: () => `Landed in part: a write failed (see the problems below), so ${notWritten.size} `
    + 'of the changes were not written and are as they were (marked "not written"); fix the '
    + 'problem, then run the merge again. The written changes stay unless you reject them and '
    + `run the command below with the downloaded ${decisionFile}.`,
  failed: () => 'Not written: merge-refs could not write into the package (see the problems '
    + 'below), so nothing is written. Fix that, then run the command below with the downloaded '
    + `${decisionFile}: undecided and accepted changes land; rejected ones do not.`,
  stopped: () => 'Pending: the merge stopped before writing anything (see the problems below); '
    + 'nothing is written.',
  pending: () => 'Pending: nothing is written yet (a dry run). Undecided and accepted changes '
    + `land when you run the command below with the downloaded ${decisionFile}; rejected ones `
    + 'do not.',
};

/** The first screen's line on whether the changes are written, and the controls' words. */
function describeChanges() {
  const line = $('changes-state');
  /** @type {keyof typeof CHANGES_STATES} */
  const state = landed ? (notWritten.size ? 'partial' : 'landed')
    : data.changes === 'stopped' || data.changes === 'failed' ? data.changes : 'pending';
  line.className = 'changes-state ' + state;
  line.textContent = CHANGES_STATES[state]();
  if (!landed) return;
  $('accept-all').textContent = 'Keep all';
  $('download').textContent = 'Download the restore file';
  $('help-decisions').textContent = 'These changes are already written: undecided and kept '
    + 'changes stay. The download lists each rejected change, and its command puts the earlier '
    + 'reference back (an added image gets an rm line).';
}

function buildHeader() {
  describeChanges();
  const counts = data.counts || {};
  $('summary').textContent = `${counts.added || 0} added, ${counts.updated || 0} updated, `
    + `${counts.unchanged || 0} unchanged, ${counts.conflict || 0} conflicts, `
    + (counts.unstable ? `${counts.unstable} unstable, ` : '')
    + `${counts.orphan || 0} orphans, `
    + (counts.redundant ? `${counts.redundant} redundant variants, ` : '')
    + `${counts.skipped || 0} skipped`
    + (notWritten.size ? `, ${notWritten.size} not written` : '') + ' — destination '
    + `${data.destination}` + (data.generatedAt ? ` — written ${data.generatedAt}` : '');

  const filters = $('outcome-filters');
  for (const outcome of OUTCOMES) {
    const count = cards.filter((card) => card.outcome === outcome).length;
    const label = make('label', `filter ${outcome}`);
    const box = make('input');
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
    const incomplete = source.incomplete ? ` — incomplete: ${source.incomplete}` : '';
    $('sources').append(make('li', '',
      `${source.name}: ${source.images} images, ${source.worker}${incomplete}`));
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
  $('status-filter').addEventListener('change', () =>
    setStatus(/** @type {StatusFilter} */ (inputOf('status-filter').value)));
  $('path-filter').addEventListener('input', () => {
    state.path = inputOf('path-filter').value;
    refilter();
  });
  $('group-toggle').addEventListener('change', () => {
    state.collapse = inputOf('group-toggle').checked;
    refilter();
  });
  $('group-filter-clear').addEventListener('click', () => { state.groupOnly = null; refilter(); });
  const kindFilter = /** @type {HTMLSelectElement} */ ($('kind-filter'));
  for (const kind of KINDS) {
    const count = cards.filter((card) => hasKind(card, kind.key)).length;
    const option = make('option', '', `${kind.name} (${count})`);
    option.value = kind.key;
    option.disabled = count === 0;
    kindFilter.append(option);
  }
  kindFilter.addEventListener('change', () => {
    state.kind = /** @type {ChangeKindName | 'all'} */ (kindFilter.value);
    refilter();
  });
  $('change-group-filter-clear').addEventListener('click', () => {
    state.changeGroupOnly = null;
    refilter();
  });
  $('mix').addEventListener('input', () => setMix(Number(inputOf('mix').value)));
  $('zoom-in').addEventListener('click', () => zoomCurrent(1.5));
  $('zoom-out').addEventListener('click', () => zoomCurrent(1 / 1.5));
  $('zoom-fit').addEventListener('click', () => zoomCurrent(0));
  $('help-button').addEventListener('click', () => toggleHelp());
  $('help-close').addEventListener('click', () => toggleHelp(false));
  setShortcuts(storedShortcuts());
  $('shortcuts-toggle').addEventListener('change', () => setShortcuts(shortcutsOn()));

  const table = /** @type {HTMLTableElement} */ ($('help-keys'));
  for (const [keys, action] of KEYS) {
    const row = table.insertRow();
    const cell = row.insertCell();
    for (const key of keys.split('  ')) cell.append(make('kbd', '', key), ' ');
    row.insertCell().textContent = action;
  }
}

function updateHeader() {
  for (const button of $('modes').children) {
    const mode = /** @type {HTMLElement} */ (button).dataset.mode;
    button.setAttribute('aria-pressed', String(mode === MODES[state.mode].key));
  }
  const mode = MODES[state.mode].key;
  $('mix-label').hidden = !['swipe', 'onion', 'overlay'].includes(mode);
  inputOf('status-filter').value = state.status;
  inputOf('group-toggle').checked = state.collapse;
  $('group-filter').hidden = !state.groupOnly;
  if (state.groupOnly) {
    $('group-filter-label').textContent =
      `showing the ${(groups.get(state.groupOnly) || []).length} images with one change`;
  }
  inputOf('kind-filter').value = state.kind;
  $('change-group-filter').hidden = !state.changeGroupOnly;
  if (state.changeGroupOnly) {
    const members = changeGroups.get(state.changeGroupOnly) || [];
    $('change-group-filter-label').textContent = `showing the ${members.length} images `
      + `changed the same way (${members.length ? members[0].changeGroupLabel : ''})`;
  }
  document.body.dataset.mode = mode;
  updateZoomLabel();
}

/** @param {StatusFilter} status */
function setStatus(status) {
  state.status = status;
  refilter();
}

// ---- Help -----------------------------------------------------------------------------------

/** @type {HTMLElement | null} where the focus was before the help opened */
let focusBeforeHelp = null;

/**
 * Shows or hides the help (toggles without `show`). Opening moves the focus into it; closing
 * returns the focus where it was.
 * @param {boolean} [show]
 */
function toggleHelp(show) {
  const help = $('help');
  const open = show === undefined ? help.hidden : show;
  if (open === !help.hidden) return;
  help.hidden = !open;
  if (open) {
    focusBeforeHelp = /** @type {HTMLElement | null} */ (document.activeElement);
    $('help-close').focus();
  } else {
    const back = focusBeforeHelp && focusBeforeHelp.isConnected ? focusBeforeHelp : list;
    focusBeforeHelp = null;
    back.focus();
  }
}

/**
 * Keeps Tab inside the open help: from its last control to its first, and back.
 * @param {KeyboardEvent} event
 */
function trapHelpFocus(event) {
  const controls = /** @type {HTMLElement[]} */ (
    [...$('help').querySelectorAll('button, input, a[href], [tabindex]')]);
  if (controls.length === 0) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  const inside = $('help').contains(document.activeElement);
  if (event.shiftKey && (document.activeElement === first || !inside)) {
    last.focus();
    event.preventDefault();
  } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
    first.focus();
    event.preventDefault();
  }
}

// ---- Keys -----------------------------------------------------------------------------------

/** @param {KeyboardEvent} event */
function onKeyDown(event) {
  const target = /** @type {Element} */ (event.target);
  const typing = target.matches && target.matches('input[type=search], input[type=text], input[type=range], textarea, select');
  if (typing) {
    if (event.key === 'Escape' || event.key === 'Enter') {
      /** @type {HTMLElement} */ (target).blur();
      list.focus();
      event.preventDefault();
    }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const help = !$('help').hidden;
  if (event.key === 'Escape') { toggleHelp(false); return; }
  if (help && event.key === 'Tab') { trapHelpFocus(event); return; }
  // WCAG 2.1.4: with shortcuts off, a key that types one character does nothing here.
  if (event.key.length === 1 && !shortcutsOn()) return;
  if (event.key === '?') { toggleHelp(); event.preventDefault(); return; }
  if (help) return;
  const card = visible[state.current];
  const handled = handleKey(event.key, card);
  if (handled !== false) event.preventDefault();
}

/**
 * Does what `key` does; false when it does nothing (the browser then acts on it).
 * @param {string} key
 * @param {Card | undefined} card the current card
 * @returns {boolean | void}
 */
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
    case '[': return setMix(Number(inputOf('mix').value) - 10);
    case ']': return setMix(Number(inputOf('mix').value) + 10);
    case '+': case '=': return zoomCurrent(1.5);
    case '-': case '_': return zoomCurrent(1 / 1.5);
    case '0': return zoomCurrent(0);
    case 'n': return jump(1, (c) => statusOf(c) === 'undecided');
    case 'p': return jump(-1, (c) => statusOf(c) === 'undecided');
    case 'N': return card && jump(1, (c) => c.outcome === card.outcome);
    case 'P': return card && jump(-1, (c) => c.outcome === card.outcome);
    case '/':
      $('path-filter').focus();
      return inputOf('path-filter').select(); // typing replaces the old filter
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
