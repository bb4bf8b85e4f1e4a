// swift-tools-version:6.0
import Foundation
import PackageDescription

// The checkout under measurement. Scripts/benchmark-generation copies this package out of the
// tree and rewrites this line with the checkout's absolute path.
let checkout = "../.."
// A path dependency is known by its folder's name, which differs between clones.
let identity = URL(
  fileURLWithPath: checkout,
  relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
).standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
  name: "GenerationBench",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: checkout)],
  targets: [
    .executableTarget(
      name: "zip-bench",
      dependencies: [.product(name: "ReferenceArchive", package: identity)]
    ),
    .testTarget(
      name: "GenerationBenchTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: identity)]
    ),
  ]
)
