// The review page's side of the decision-file grammar: runs review-decisions.js (the page's
// export) on the shared cases of ../decision-file-cases.json, which DecisionFileCaseTests reads
// with IncludeFilter.parse. Each case's cards must export as exactly its text, and the text must
// mean what the case says it parses to; the page must escape exactly the white space the reader
// drops. Run by Scripts/lint-page:
//
//   node Tests/ReferenceReviewTests/__Fixtures__/review-page/decision_file_cases.mjs PAGE_FOLDER
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const page = process.argv[2] || join(here, '../../../../Sources/ReferenceReview/ReviewPage');
const shared = JSON.parse(readFileSync(join(here, '../decision-file-cases.json'), 'utf8'));

// The page's scripts share one global scope; the export needs only these of the others.
const context = vm.createContext({
  data: { id: 'decision-file-cases' },
  cards: [],
  isDecidable: (card) => card.outcome === 'added' || card.outcome === 'updated',
  localStorage: { getItem: () => null, setItem: () => {} },
});
vm.runInContext(readFileSync(join(page, 'review-decisions.js'), 'utf8'), context,
  { filename: 'review-decisions.js' });
const run = (expression, value) => {
  context.argument = value;
  return vm.runInContext(`${expression}(argument)`, context);
};

const failures = [];
const check = (name, actual, expected) => {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) failures.push(`${name}:\n    page writes ${a}\n    case says   ${e}`);
};

let exported = 0;
for (const entry of shared.cases.filter((c) => c.cards)) {
  const write = entry.restore ? 'restoreLine' : 'exportLine';
  const text = entry.cards.map((card) => run(write, card) + '\n').join('');
  check(entry.name, text, entry.text);
  // The decisions the case expects are the cards' own: the path and the digests reviewed.
  const bound = entry.cards.filter((card) => card.afterPixels
    && (entry.restore || card.outcome === 'added' || card.beforePixels));
  const approvals = bound.map((card) => entry.restore
    ? { path: card.path, before: card.afterPixels, after: card.beforePixels }
    : { path: card.path, before: card.beforePixels || null, after: card.afterPixels });
  check(`${entry.name} (its approvals)`, approvals, entry.approvals);
  exported += 1;
}

// Every character the reader drops at a line's ends, and no other, is escaped at a path's ends
// (beside the glob's own *, ? and \, escaped anywhere).
const escaped = [];
for (let code = 0; code <= 0xffff; code += 1) {
  if ((code >= 0xd800 && code <= 0xdfff) || '*?\\'.includes(String.fromCharCode(code))) continue;
  const character = String.fromCharCode(code);
  if (run('globEscaped', 'a' + character) === 'a\\' + character) escaped.push(character);
}
check('white space escaped at the end of a path', escaped.join(''), shared.lineSpace);

if (failures.length) {
  console.error(`decision-file cases: ${failures.length} disagreement(s)\n  `
    + failures.join('\n  '));
  process.exit(1);
}
console.log(`decision-file cases: the page writes all ${exported} export cases `
  + `(${shared.cases.length} cases in all)`);
