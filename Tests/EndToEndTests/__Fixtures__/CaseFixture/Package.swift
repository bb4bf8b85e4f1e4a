// swift-tools-version:6.0
// A package whose render tests are Swift Testing only, as a team new to the package writes
// them: parameterized tests with several argument kinds, a suite with the `.referenceImages`
// trait, tags, a disabled and a conditional test, a case that throws before asserting, two test
// targets. The end-to-end tests copy it, point the dependency at the checkout, and run real
// `swift test`, the plugin and merge-refs on it.
import PackageDescription

let package = Package(
  name: "CaseFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "IconTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")]),
    .testTarget(
      name: "BadgeCaseTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")]),
  ]
)
