// The types of the review page: the report that review-data.js assigns to
// window.REFERENCE_REVIEW (written by merge-refs --report, ReviewData.swift), and the page's own
// values. Read by the type check (Scripts/lint-page); the browser never loads this file.

/** One image file of the report: its address (a file beside the page, or a data: URI). */
interface ReviewImage {
  src: string;
  width: number;
  height: number;
}

/** One source's render of a conflicting path. */
interface ReviewRival {
  label: string;
  image?: ReviewImage | null;
}

/**
 * The package file a card's "before" shows: the path's own current file (an update), or for a
 * new variant file the fallback its variant used until now.
 */
interface ComparedFile {
  path: string;
  /** The variant whose file it is; null for a base file. */
  variant?: string | null;
  /** Whether it is a fallback of the card's variant rather than the card's own file. */
  fallback: boolean;
}

/** An updated variant file's fallback: what its variant would use without the file. */
interface FallbackFile {
  path: string;
  /** The fallback's variant; null for the base. */
  variant?: string | null;
  image: ReviewImage;
}

type Outcome = 'added' | 'updated' | 'conflict' | 'unstable' | 'orphan' | 'redundant';

/** A kind of change, as ChangeKind.name spells it (ReferenceImageCore). */
type ChangeKindName =
  | 'moved' | 'recoloured' | 'added' | 'removed' | 'antiAliasingOrNoise' | 'resized' | 'changed';

/** What kind of change one boxed region is (ChangeClassifier). */
interface RegionKind {
  kind: ChangeKindName;
  /** The kind with its parameters, for people: "moved by (2, 1)", "recoloured #16A34A → #9333EA". */
  label: string;
  /** The region's box tightened to its changed pixels: [x, y, width, height]. */
  box: [number, number, number, number];
  changedPixels: number;
}

/**
 * One changed reference image, as the report describes it. On a landed report "before" is the
 * reference the merge replaced and "after" the one it wrote.
 */
interface ReviewCard {
  id: number;
  path: string;
  outcome: Outcome;
  /**
   * The variant whose file the path is (name@@variant.png); null for a base file, and for every
   * file of a package that declares no variants. Absent in older reports: the base.
   */
  variant?: string | null;
  /** What "before" shows, when it is a file of the package; null otherwise. */
  comparedWith?: ComparedFile | null;
  /** For an updated variant file, its fallback as the package holds it, shown too. */
  fallback?: FallbackFile | null;
  /** Cards with the same group show the identical change. */
  group?: string | null;
  /** The pixel digest of the reference reviewed; absent for an added image. */
  beforePixels?: string | null;
  /** The pixel digest of the new image reviewed. */
  afterPixels?: string | null;
  before?: ReviewImage | null;
  after?: ReviewImage | null;
  difference?: ReviewImage | null;
  changedPixels?: number | null;
  totalPixels?: number | null;
  maxChannelDifference?: number | null;
  /** Changed regions as [x, y, width, height] in image pixels. */
  regions?: [number, number, number, number][] | null;
  /** What kind of change each region is, one per box of regions, in the same order. */
  regionKinds?: RegionKind[] | null;
  /**
   * The change's fingerprint (ChangeFingerprint): cards with the same one changed the same way
   * (the same kinds with the same parameters; the same pixels where a kind has none). Absent
   * in older reports and where nothing was compared.
   */
  changeGroup?: string | null;
  /** The change group's kinds in words: "recoloured #16A34A → #9333EA". */
  changeGroupLabel?: string | null;
  meta?: string[] | null;
  rivals?: ReviewRival[] | null;
}

/** A card as the page keeps it: with its path in lower case, for the path filter. */
type Card = ReviewCard & { lowerPath: string };

interface ReviewSource {
  name: string;
  images: number;
  worker: string;
  incomplete?: string | null;
}

/**
 * window.REFERENCE_REVIEW: the whole report's metadata. Owned by ReviewData.swift: Scripts/lint-page
 * type-checks a sample it writes (Tests/ReferenceReviewTests/__Fixtures__/review-data-sample.json)
 * against these types, every field required.
 */
interface ReviewData {
  /** ReviewData.version; the page reads no other. */
  version: 1;
  id: string;
  destination?: string;
  generatedAt?: string | null;
  /**
   * Whether the merge wrote the changes, as applying left the package: pending (a dry run:
   * nothing written), stopped (problems or conflicts stopped the merge before writing), failed
   * (a write failed before any file was written: nothing written) or landed (written; paths a
   * failed write did not reach are in notWritten). Absent in older reports: pending.
   */
  changes?: 'pending' | 'stopped' | 'failed' | 'landed' | null;
  /**
   * On a report landed in part: the added, updated and pruned paths that a failed write kept
   * the merge from reaching (those files are as they were). Absent in older reports: none.
   */
  notWritten?: string[] | null;
  /**
   * The file the page exports, named by Swift alone (ReportRequest.decisionFileName, or
   * restoreFileName when landed): the page spells neither name.
   */
  decisionFile: string;
  /**
   * The merge-refs command that runs the exported file, as words: it lands the accepted changes,
   * or on a landed report restores the rejected ones from the report's earlier references.
   */
  command?: string[] | null;
  /** The destination as the command names it (absolute, or as given): rm lines name files in it. */
  commandDestination?: string | null;
  counts?: Partial<Record<Outcome | 'unchanged' | 'skipped', number>> | null;
  sources?: ReviewSource[] | null;
  problems?: string[] | null;
  warnings?: string[] | null;
  skippedTests?: string[] | null;
  cards: ReviewCard[];
}

/**
 * A card's decision; a card without one is undecided (and lands, or on a landed report stays).
 * On a landed report accepted means kept as landed, rejected means to restore.
 */
type Decision = 'accepted' | 'rejected';

/** What a card shows in the status label: its decision, undecided, or none (not decidable). */
type Status = Decision | 'undecided' | 'none';

/** The decision filter's values. */
type StatusFilter = 'all' | 'undecided' | 'accepted' | 'rejected';

/** One undoable step: each path with the decision it had before (undefined: undecided). */
type UndoBatch = [string, Decision | undefined][];

/** A card's zoom and pan: scale (screen pixels per image pixel) and the image point centred. */
interface View {
  s: number;
  cx: number;
  cy: number;
}

interface Window {
  REFERENCE_REVIEW?: ReviewData;
}
