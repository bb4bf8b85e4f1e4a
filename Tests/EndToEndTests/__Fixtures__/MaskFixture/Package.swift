// swift-tools-version:6.0
// A package whose render tests ignore regions and tolerate shifts: a dashboard with a clock
// that changes between runs (MASK_FIXTURE_CLOCK), a bar that moves (MASK_FIXTURE_CHANGE=bars),
// a label that moves by a pixel (MASK_FIXTURE_CHANGE=shift) and colours that drift by a level
// (MASK_FIXTURE_CHANGE=tint). The end-to-end tests copy it, point the dependency at the
// checkout, and run real `swift test`, merges and review reports on it.
import PackageDescription

let package = Package(
  name: "MaskFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "MaskTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")])
  ]
)
