// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "ReferenceImages",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "ReferenceImageCore", targets: ["ReferenceImageCore"]),
    .library(name: "ReferenceContracts", targets: ["ReferenceContracts"]),
    .library(name: "ReferenceArchive", targets: ["ReferenceArchive"]),
    .library(name: "ReferenceMerge", targets: ["ReferenceMerge"]),
    .library(name: "ReferenceImageTesting", targets: ["ReferenceImageTesting"]),
    .library(name: "ReferenceStore", targets: ["ReferenceStore"]),
    .executable(name: "merge-refs", targets: ["merge-refs"]),
    .executable(name: "reference-shards", targets: ["reference-shards"]),
    .executable(name: "add-pixel-digests", targets: ["add-pixel-digests"]),
    .executable(name: "compact-references", targets: ["compact-references"]),
    .executable(name: "reference-store", targets: ["reference-store"]),
    .plugin(name: "RegenerateReferences", targets: ["RegenerateReferences"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    .systemLibrary(
      name: "CSpng",
      pkgConfig: "spng",
      providers: [.apt(["libspng-dev"]), .brew(["libspng"])]
    ),
    .systemLibrary(
      name: "CArchive",
      pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
    ),
    .systemLibrary(
      name: "CLibPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
    ),
    .systemLibrary(
      name: "CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    // Whole-buffer inflate for the PNG reader's common case, several times zlib's speed.
    .systemLibrary(
      name: "CLibDeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
    ),
    // HTTP for the network stores: one connection reused per worker, a fraction of the CPU
    // of a URLSession request.
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    .systemLibrary(
      name: "CLibCrypto",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
    ),
    // Zstandard, for the compressed objects of Xcode result bundles.
    .systemLibrary(
      name: "CZstd",
      pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
    ),
    .target(
      name: "ReferenceImageCore",
      dependencies: [
        "CSpng", "CLibCrypto", "CZlib", "CFastDeflate", "CLibDeflate", "CPNGUnfilter", "CXXHash",
      ]
    ),
    // XXH3, the pixel digest's fast hash: the system's xxHash header compiled inline into the
    // package, which runs about as fast as the copy it replaced and faster than the shared
    // library (Scripts/benchmark-xxhash).
    .target(name: "CXXHash", dependencies: ["CLibXXHash"]),
    .systemLibrary(
      name: "CLibXXHash",
      pkgConfig: "libxxhash",
      providers: [.apt(["libxxhash-dev"]), .brew(["xxhash"])]
    ),
    // The PNG reader's row unfiltering, in vector lanes.
    .target(name: "CPNGUnfilter"),
    // The deflate of the PNG encoder's default setting.
    .target(name: "CFastDeflate"),
    // What every side agrees on: the manifest's schema, test and case names, run modes, exit
    // statuses, tool versions, variants and the generation contract's names. The plugin links
    // the files that import nothing (ExitStatus, RunMode, GenerationContract).
    .target(name: "ReferenceContracts", dependencies: ["ReferenceImageCore"]),
    // The archive: zip writing and reading with its entry-path rules and limits, and the file
    // system's atomic writes.
    .target(
      name: "ReferenceArchive",
      dependencies: ["ReferenceContracts", "ReferenceImageCore", "CArchive", "CLibDeflate"]
    ),
    // References outside the repository: pointer files, the stores that hold the PNGs they
    // name (a folder, HTTP, S3) and the local cache. Linked into test binaries, which read
    // pointers and fetch what a failing comparison needs.
    .target(
      name: "ReferenceStore",
      dependencies: ["ReferenceImageCore", "ReferenceArchive", "CLibCrypto", "CCurl"]
    ),
    // What other tools left: Xcode result bundles read directly, xcresulttool attachment
    // exports, and where their attachments land. Knows nothing of the merge; the merge's
    // sources wrap it.
    .target(
      name: "ReferenceImports",
      dependencies: ["ReferenceContracts", "ReferenceArchive", "CZstd", "CLibCrypto"]
    ),
    // Merging archives into a package's reference folders: used by merge-refs, never linked
    // into a user's test binary.
    .target(
      name: "ReferenceMerge",
      dependencies: [
        "ReferenceImageCore", "ReferenceContracts", "ReferenceArchive", "ReferenceImports",
        "ReferenceStore", "CSystemCalls",
      ]
    ),
    // The review report and its page, which the merge calls through `MergeSession.report`:
    // merge-refs links it; the merge library, fuzzers and benchmarks do not carry the page.
    .target(
      name: "ReferenceReview",
      dependencies: [
        "ReferenceMerge", "ReferenceArchive", "ReferenceContracts", "ReferenceImageCore",
      ],
      // The page's HTML, CSS and JavaScript, embedded as Swift literals by the plugin.
      exclude: ["ReviewPage"],
      plugins: ["EmbedReviewPage"]
    ),
    // Turns the review page's files into a Swift source of literals, so the page travels inside
    // the program rather than in a resource bundle found by its build path.
    .executableTarget(name: "embed-page"),
    .plugin(
      name: "EmbedReviewPage",
      capability: .buildTool(),
      dependencies: ["embed-page"]
    ),
    // Running another program safely (argument arrays, both pipes drained, interrupted with
    // this process): the tools, the benchmarks, the tests and (one file of it, linked into its
    // folder) the regenerate-references plugin share it.
    .target(name: "ProcessSupport"),
    // openat2(2), which Swift cannot call through the variadic syscall(2).
    .target(name: "CSystemCalls"),
    .target(name: "CReferenceImageRegistration"),
    .target(
      name: "ReferenceImageTesting",
      dependencies: [
        "ReferenceImageCore", "ReferenceContracts", "ReferenceArchive", "ReferenceStore",
        "CReferenceImageRegistration",
      ]
    ),
    // Sharding across CI machines: test listing, the plan, durations, shard records and the
    // completeness check `merge-refs --require-shards` runs. Never linked into a test binary.
    .target(
      name: "ReferenceShards",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceImageCore", "ProcessSupport",
      ]
    ),
    .executableTarget(
      name: "reference-shards",
      dependencies: [
        "ReferenceShards",
        "ReferenceContracts",
        // Interruption: Ctrl-C stops the running tests.
        "ProcessSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "merge-refs",
      dependencies: [
        "ReferenceContracts",
        "ReferenceArchive",
        "ReferenceMerge",
        "ReferenceReview",
        "ReferenceShards",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // `swift package --allow-writing-to-package-directory regenerate-references` in a package
    // that depends on this one: a generation run of its tests, then merge-refs.
    .plugin(
      name: "RegenerateReferences",
      capability: .command(
        intent: .custom(
          verb: "regenerate-references",
          description:
            "Run the tests in generation mode with parallel workers and merge the new references"
        ),
        permissions: [
          .writeToPackageDirectory(
            reason: "merge-refs writes the regenerated reference images into the package")
        ]
      ),
      dependencies: ["merge-refs", "reference-shards"]
    ),
    .executableTarget(
      name: "add-pixel-digests",
      dependencies: [
        "ReferenceArchive",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // Rewrites a tree's references in the smallest lossless form; the logic is `CompactRewrite`
    // (in ReferenceArchive, which merge-refs --compact shares).
    .executableTarget(
      name: "compact-references",
      dependencies: [
        "ReferenceArchive", "ReferenceImageCore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // Moves a package's references into its store and back, fills the cache, lists unused
    // objects; the logic is `StoreMigration`.
    .executableTarget(
      name: "reference-store",
      dependencies: [
        "ReferenceStore", "ReferenceArchive", "ProcessSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "Benchmarks",
      dependencies: [
        "ReferenceImageCore", "ReferenceReview", "CLibPNG", "ProcessSupport", "RenderCorpus",
      ]
    ),
    // libFuzzer targets (Scripts/fuzz builds them with -DFUZZING -sanitize=fuzzer); in a normal
    // build each is a program that replays a corpus, so `swift build` still compiles them.
    .target(name: "FuzzSupport"),
    .executableTarget(
      name: "FuzzPNGDecoder",
      dependencies: ["ReferenceImageCore", "FuzzSupport"]
    ),
    .executableTarget(
      name: "FuzzResultBundle",
      dependencies: ["ReferenceImports", "FuzzSupport"]
    ),
    .executableTarget(
      name: "FuzzArchiveMerge",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceImageCore",
        "FuzzSupport",
      ]
    ),
    // Result bundles written in the real grammar (typed object text, zstd objects, content
    // ids), for the import tests and the import benchmark.
    .target(
      name: "SyntheticBundles", dependencies: ["CZstd", "CLibCrypto"],
      path: "Tests/SyntheticBundles"),
    // Times merge-refs on result bundles against the same attachments exported as files, and
    // on a synthetic bundle of thousands of snapshots (Scripts/benchmark-imports runs it).
    .executableTarget(
      name: "ImportBenchmark",
      dependencies: ["SyntheticBundles", "ReferenceImports", "ReferenceImageCore"]
    ),
    // The change-kind corpus: realistic renders with one change each and the kinds a person
    // names, for the classifier's tests and the change-kinds benchmark.
    .target(
      name: "RenderCorpus", dependencies: ["ReferenceImageCore"], path: "Tests/RenderCorpus"),
    // Helpers the test targets share: temporary folders, child processes, built products.
    .target(
      name: "TestSupport", dependencies: ["ProcessSupport", "ReferenceContracts"],
      path: "Tests/TestSupport"),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceImageCore",
        "ReferenceShards", "TestSupport",
      ],
      exclude: ["__Fixtures__"]
    ),
    // What the merge's tests share: archives built as the coordinator writes them, images,
    // trees, the merge-refs binary, and the scenario language that states a merge in a few
    // lines and reads back its verdict (`MergeScenario`, `MergeVerdict`).
    .target(
      name: "MergeTestSupport",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceImageCore",
        "TestSupport",
      ],
      path: "Tests/MergeTestSupport"
    ),
    // The merge library: the planner's verdict (outcomes, conflicts, orphans, variants, runs,
    // approvals), the destination, sources and sessions, asserted on values, not printed text.
    .testTarget(
      name: "ReferenceMergeTests",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceReview",
        "ReferenceImageCore", "MergeTestSupport", "TestSupport",
      ],
      exclude: ["__Fixtures__"]
    ),
    // The review: the report, its page in a browser, decision files.
    .testTarget(
      name: "ReferenceReviewTests",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceReview",
        "ReferenceImageCore", "MergeTestSupport", "TestSupport",
      ],
      exclude: ["__Fixtures__"]
    ),
    // The command line's contract: parsing, what merge-refs prints, --help, exit codes as the
    // user sees them, in-process runs and the built binary.
    .testTarget(
      name: "MergeRefsTests",
      dependencies: [
        "ReferenceContracts", "ReferenceArchive", "ReferenceMerge", "ReferenceReview",
        "ReferenceShards", "ReferenceImageCore", "MergeTestSupport", "TestSupport",
        // The command itself, which `MergeInProcess` parses and runs in the test process.
        "merge-refs",
      ]
    ),
    .testTarget(
      name: "ReferenceImportsTests",
      dependencies: [
        "ReferenceImports", "ReferenceMerge", "ReferenceContracts", "ReferenceArchive",
        "ReferenceImageCore", "TestSupport", "SyntheticBundles",
      ]
    ),
    .testTarget(
      name: "ReferenceShardsTests",
      dependencies: [
        "ReferenceShards", "ReferenceContracts", "ReferenceArchive", "ReferenceMerge",
        "ReferenceImageCore",
        "TestSupport",
      ]
    ),
    .testTarget(
      name: "ReferenceContractsTests",
      dependencies: ["ReferenceContracts", "TestSupport"]
    ),
    .testTarget(
      name: "ReferenceStoreTests",
      dependencies: ["ReferenceStore", "ReferenceImageCore", "TestSupport"],
      // AWS's Signature Version 4 vectors, and the fault server and S3 client the tests run.
      exclude: ["__Fixtures__"]
    ),
    .testTarget(
      name: "ReferenceArchiveTests",
      dependencies: ["ReferenceArchive", "TestSupport"]
    ),
    // `compact-references`, run as its article prints it.
    .testTarget(
      name: "CompactReferencesTests",
      dependencies: ["ReferenceImageCore", "TestSupport"]
    ),
    // The digest backfill of `add-pixel-digests`, imported from the command itself.
    .testTarget(
      name: "AddPixelDigestsTests",
      dependencies: ["add-pixel-digests", "ReferenceImageCore", "TestSupport"]
    ),
    .testTarget(
      name: "ReferenceImageCoreTests",
      dependencies: [
        "ReferenceImageCore", "CFastDeflate", "CZlib", "TestSupport", "RenderCorpus",
      ],
      exclude: ["__Fixtures__"]
    ),
    .testTarget(
      name: "ReferenceImageTestingTests",
      dependencies: [
        "ReferenceImageTesting", "ReferenceContracts", "ReferenceArchive", "TestSupport",
      ]
    ),
  ]
)
