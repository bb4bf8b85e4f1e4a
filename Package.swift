// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "ReferenceImages",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "ReferenceImageCore", targets: ["ReferenceImageCore"])
  ],
  targets: [
    .systemLibrary(
      name: "CSpng",
      pkgConfig: "spng",
      providers: [.apt(["libspng-dev"]), .brew(["libspng"])]
    ),
    .systemLibrary(
      name: "CArchive",
      pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
    ),
    .systemLibrary(
      name: "CLibPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
    ),
    .target(
      name: "ReferenceImageCore",
      dependencies: ["CSpng"]
    ),
    .executableTarget(
      name: "Benchmarks",
      dependencies: ["ReferenceImageCore", "CLibPNG"]
    ),
    .testTarget(
      name: "ReferenceImageCoreTests",
      dependencies: ["ReferenceImageCore"],
      exclude: ["__Fixtures__"]
    ),
  ]
)
