// swift-tools-version:6.0
// A small package with render tests, used by the end-to-end tests: they copy it to a temporary
// folder, point the dependency at the checkout, and run real `swift test` in it.
import PackageDescription

let package = Package(
  name: "RenderFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .target(
      name: "Shapes",
      dependencies: [.product(name: "ReferenceImageCore", package: "ReferenceImages")]),
    .testTarget(
      name: "BadgeTests",
      dependencies: [
        "Shapes", .product(name: "ReferenceImageTesting", package: "ReferenceImages"),
      ]),
    .testTarget(
      name: "ChartTests",
      dependencies: [
        "Shapes", .product(name: "ReferenceImageTesting", package: "ReferenceImages"),
      ]),
    .testTarget(
      name: "SwiftTestingTests",
      dependencies: [
        "Shapes", .product(name: "ReferenceImageTesting", package: "ReferenceImages"),
      ]),
  ]
)
