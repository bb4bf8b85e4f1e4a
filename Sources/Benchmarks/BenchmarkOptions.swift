/// The benchmark's few command-line options, parsed by hand so the executable needs nothing
/// beyond the core and libpng.
struct BenchmarkOptions {
  /// Measured repetitions per figure, after one warm-up.
  var repetitions = 7
  /// The side of the square test images.
  var side = 2000
  /// Where to leave the PNG and raw RGBA pair (for other tools to measure); a temporary
  /// folder, removed at the end, when nil.
  var keepImages: String?
  /// The folder holding `pixelmatch-7.2.0/index.js`.
  var anchors = "../shared/anchors"
  /// Only the comparison rows: no PNG decoding or encoding, for profiling.
  var comparisonsOnly = false
  /// Only the review report's difference images against decoding (800×600, one core).
  var reviewDifferenceOnly = false
  /// Only classifying failing pairs' changes against drawing their difference images.
  var changeKindsOnly = false
  /// With `--change-kinds`: only the pairs whose label holds this text, and no 800×600 pairs
  /// unless it matches theirs (for profiling one kind).
  var changeKindsPairs: String?
  /// With `--change-kinds`: a file to write every classified region into.
  var changeKindsRegions: String?
  /// Only passing comparisons with ignored regions and shift tolerance against plain ones.
  var comparisonOptionsOnly = false
  /// Only PNG encoding of the screenshot (ours at every setting, and libpng), for profiling.
  var encodeOnly = false
  /// With `--encode-only`: only this setting, and no libpng.
  var encodeSetting: String?
  /// With `--encode-only`: noise, a flat image and text as well as the screenshot.
  var hardCases = false
  /// With `--encode-only`: PNG files whose pixels are encoded as well (real screenshots).
  var encodeFiles: [String] = []
  /// With `--encode-only --setting S`: write each `--file`'s pixels encoded with S into this
  /// folder, under the file's name, and measure nothing (the compaction benchmark's corpus).
  var writeFolder: String?
  /// Only the cost of reading compact references: these files' pixels as `.fast` and as
  /// `.compact` references of a failing verify and a merge comparison.
  var compactCostFiles: [String] = []
  /// Only PNG decoding beside the peers (pyspng, Pillow, fpng, blazediff, pixelhog).
  var decodePeers = false
  /// Only decoding these files, now and with libspng alone, with page faults per decode.
  var decodeFiles: [String] = []
  /// With `--decode-peers`: the Python that has the peers installed.
  var python = ".build-release/peers-venv/bin/python"
  /// With `--decode-peers`: a JPEG whose content, resampled, is the photo case.
  var photo: String?
  /// With `--decode-peers`: the script that writes the peers' files and times them.
  var peersScript = "Scripts/benchmark_decode_peers.py"
  /// The node script that times pixelmatch.
  var pixelmatchScript = "Scripts/pixelmatch-timing.mjs"

  static let usage = """
    usage: Benchmarks [--repetitions N] [--size PIXELS] [--keep-images DIR] [--anchors DIR]
                      [--comparisons-only] [--review-difference] [--change-kinds [--pairs TEXT] [--regions FILE]]
                      [--comparison-options]
                      [--encode-only [--setting fast|small|fastest|compact] [--hard-cases]
                                     [--file PNG]... [--write DIR]]
                      [--decode-peers [--python PATH] [--photo JPEG]] [--decode-file PNG]...
                      [--compact-cost PNG]...

    Measures ReferenceImageCore on screenshot-like images against memcmp, pixelmatch's
    JavaScript (with node), ImageMagick's `compare -metric AE` and libpng, in the same run.
    Run from the repository root. Build in release:
      swift build -c release --product Benchmarks --scratch-path .build-release
    or run Scripts/benchmark, which builds, installs ImageMagick when missing and runs this.

      --repetitions N    measured repetitions per figure after one warm-up (default 7)
      --size PIXELS      side of the square images (default 2000: 4 Mpx, the issue's size)
      --keep-images DIR  write reference.png, actual.png and their .rgba files to DIR and keep them
      --anchors DIR      the folder holding pixelmatch-7.2.0/index.js (default ../shared/anchors,
                         beside the checkout)
      --comparisons-only the comparison rows alone (no PNG decode or encode), for profiling
      --review-difference  only the review report's difference image (compare, draw, regions,
                         encode) against decoding the two PNGs, 800×600, one core
      --change-kinds     only classifying failing pairs' changes (ChangeClassifier) against
                         drawing their difference images, exact and perceptual: --size-square
                         screenshot pairs and every change-kind corpus pair tiled, then 1,000
                         failing 800×600 pairs; --pairs TEXT keeps the pairs whose label holds
                         TEXT (for profiling one kind); --regions FILE writes every region
                         classified (box, changed pixels, kind) to FILE, to compare builds
      --comparison-options only passing comparisons with an ignored region and with shift
                         tolerance 1, each against the same strategy without, on --size pairs
      --encode-only      only PNG encoding of the screenshot (every setting, and libpng), for
                         profiling with perf; --setting keeps only that setting;
                         --hard-cases adds noise, a flat image and text; each --file adds
                         the pixels of a PNG file (a real screenshot, say); --write DIR
                         writes each file's pixels encoded with --setting to DIR instead
      --decode-peers     only PNG decoding, and reading two PNGs, decoding and counting, beside
                         pyspng, Pillow, fpng, blazediff and pixelhog run by --python (default
                         .build-release/peers-venv/bin/python; Scripts/benchmark-decode makes it)
                         on files written by this package, Pillow, fpng and ImageMagick; --photo
                         adds a JPEG's content resampled to the size
      --decode-file PNG  only decoding PNG, now and with libspng alone: time and minor page
                         faults per decode
      --compact-cost PNG only a failing verify, a merge comparison and a decode of PNG's pixels
                         as a `.fast` reference and as a `.compact` one, with the ratio
    """

  /// Parses arguments (without the program name).
  /// - Throws: A message for unknown or malformed arguments.
  static func parse(_ arguments: [String]) throws(UsageError) -> BenchmarkOptions {
    var options = BenchmarkOptions()
    var remaining = arguments[...]
    func value(_ name: String) throws(UsageError) -> String {
      guard let value = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
      return value
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--repetitions":
        guard let count = Int(try value(argument)), count >= 1, count <= 1000 else {
          throw UsageError("--repetitions takes a count from 1 to 1000")
        }
        options.repetitions = count
      case "--size":
        guard let side = Int(try value(argument)), side >= 16, side <= 16384 else {
          throw UsageError("--size takes a side in pixels from 16 to 16384")
        }
        options.side = side
      case "--keep-images":
        options.keepImages = try value(argument)
      case "--comparisons-only":
        options.comparisonsOnly = true
      case "--encode-only":
        options.encodeOnly = true
      case "--hard-cases":
        options.hardCases = true
      case "--file":
        options.encodeFiles.append(try value(argument))
      case "--setting":
        options.encodeSetting = try value(argument)
      case "--compact-cost":
        options.compactCostFiles.append(try value(argument))
      case "--write":
        options.writeFolder = try value(argument)
      case "--decode-peers":
        options.decodePeers = true
      case "--decode-file":
        options.decodeFiles.append(try value(argument))
      case "--python":
        options.python = try value(argument)
      case "--photo":
        options.photo = try value(argument)
      case "--review-difference":
        options.reviewDifferenceOnly = true
      case "--change-kinds":
        options.changeKindsOnly = true
      case "--pairs":
        options.changeKindsPairs = try value(argument)
      case "--regions":
        options.changeKindsRegions = try value(argument)
      case "--comparison-options":
        options.comparisonOptionsOnly = true
      case "--anchors":
        options.anchors = try value(argument)
      case "--help", "-h":
        throw UsageError(nil)
      default:
        throw UsageError("unknown argument \(argument)")
      }
    }
    return options
  }

  struct UsageError: Error {
    /// What was wrong; nil when help was asked for.
    let message: String?
    init(_ message: String?) { self.message = message }
  }
}
