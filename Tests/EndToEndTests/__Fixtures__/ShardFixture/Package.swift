// swift-tools-version:6.0
// A package whose tests exercise sharding: a class name that prefixes another, tests that
// store no image, Swift Testing free, parameterised and nested tests, and one slow test. The
// end-to-end tests copy it, point the dependency at the checkout, and run reference-shards.
import PackageDescription

let package = Package(
  name: "ShardFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "ShardTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")])
  ]
)
