// swift-tools-version:6.0
import PackageDescription

// An example renderer for ReferenceImages: pure Swift drawing, no dependency but the root package.
let package = Package(
  name: "ChartRenderer",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "ChartRenderer", targets: ["ChartRenderer"])
  ],
  dependencies: [
    .package(name: "ReferenceImages", path: "../..")
  ],
  targets: [
    .target(
      name: "ChartRenderer",
      dependencies: [.product(name: "ReferenceImageCore", package: "ReferenceImages")]
    ),
    .executableTarget(
      name: "ChartGallery",
      dependencies: [
        "ChartRenderer", .product(name: "ReferenceImageCore", package: "ReferenceImages"),
      ]
    ),
    .testTarget(
      name: "ChartRenderTests",
      dependencies: [
        "ChartRenderer", .product(name: "ReferenceImageTesting", package: "ReferenceImages"),
      ],
      exclude: ["__References__"]
    ),
    .testTarget(
      name: "RemoteImageClientTests",
      dependencies: [
        "ChartRenderer", .product(name: "ReferenceImageCore", package: "ReferenceImages"),
      ]
    ),
    .testTarget(
      name: "ChartRendererTests",
      dependencies: [
        "ChartRenderer", .product(name: "ReferenceImageCore", package: "ReferenceImages"),
      ]
    ),
  ]
)
