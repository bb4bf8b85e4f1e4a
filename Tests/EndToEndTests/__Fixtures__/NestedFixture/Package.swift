// swift-tools-version:6.0
// The package NestedFoldersEndToEndTests adopts as a new user would: render tests three folders
// deep in one target, a renderer that writes PNG files, and a non-image test of the same target
// that always fails.
import PackageDescription

let package = Package(
  name: "NestedFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .target(
      name: "Tiles",
      dependencies: [.product(name: "ReferenceImageCore", package: "ReferenceImages")]),
    .testTarget(
      name: "TileTests",
      dependencies: [
        "Tiles", .product(name: "ReferenceImageTesting", package: "ReferenceImages"),
      ],
      exclude: ["__References__"]),
  ]
)
