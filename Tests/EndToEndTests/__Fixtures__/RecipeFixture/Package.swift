// swift-tools-version:6.0
// The package RecipeEndToEndTests shards with the CI recipe: an XCTest class whose name
// prefixes another's, Swift Testing free, parameterised and nested tests, tests that store no
// image, and durations skewed by short sleeps (about 4 s of test time in all). It declares the
// variant linux-arm64 (ReferenceVariants.json), and three of its images draw a label stroke
// that sits a pixel lower on it, as another platform's fonts would.
import PackageDescription

let package = Package(
  name: "RecipeFixture",
  dependencies: [.package(name: "ReferenceImages", path: "REFERENCE_IMAGES_ROOT")],
  targets: [
    .testTarget(
      name: "PlotTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")]),
    .testTarget(
      name: "SceneTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")]),
  ]
)
