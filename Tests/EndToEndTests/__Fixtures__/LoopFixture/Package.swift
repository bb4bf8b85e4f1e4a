// swift-tools-version:6.0
// The package PullRequestLoopEndToEndTests takes through a pull request: 52 small renders in
// four XCTest classes, two of which a pull request changes by editing Palette.swift.
import PackageDescription

let package = Package(
  name: "LoopFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "SwatchTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")])
  ]
)
