// swift-tools-version:6.0
// A package whose tests exercise what must never be lost: a test skipped on one machine
// (TRUST_SKIP=1), Swift Testing tests that are disabled, conditional or in a disabled suite, a
// render that differs on every run, and 500 deterministic renders. The end-to-end tests copy
// it, point the dependency at the checkout, and run generation and merges on it.
import PackageDescription

let package = Package(
  name: "TrustFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "TrustTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")])
  ]
)
