import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

/// Assertions in a package that declares variants: compared with the most specific file that
/// exists, stored as the running variant's own file, refused where nothing could use the render.
final class VariantChainTests: FailureCapturingTestCase {
  private var package: TemporaryPackage!

  override func setUpWithError() throws {
    package = try TemporaryPackage(self)
    try declare(#"{"linux-arm64": ["linux"], "linux": [], "macos": []}"#, base: "linux-x86_64")
  }

  private func declare(_ variants: String, base: String) throws {
    try Data(#"{"schemaVersion": 1, "base": "\#(base)", "variants": \#(variants)}"#.utf8)
      .write(to: package.root.appendingPathComponent(ReferenceVariants.fileName))
  }

  private func place(_ image: RGBAImage, at location: ReferenceLocation) throws {
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(try PNGEncoder().encode(image)).write(to: location.url)
  }

  private func chain(_ name: String = "bars", requested: String?, generating: Bool = false)
    throws -> VariantChain
  {
    let resolved = try VariantChain.resolve(
      base: try package.location(name), name: name, requested: requested,
      generating: generating)
    return try XCTUnwrap(resolved)
  }

  private func variantPath(_ variant: String) throws -> String {
    VariantPath.path(of: try package.location("bars").relativePath, variant: variant)
  }

  func testResolve_comparesWithTheMostSpecificFileThatExists() throws {
    let base = try package.location("bars")
    try place(try sampleImage(seed: 1), at: base)

    let first = try chain(requested: "linux-arm64")
    XCTAssertEqual(first.own.relativePath, try variantPath("linux-arm64"))
    XCTAssertEqual(
      first.candidates.map(\.relativePath),
      [try variantPath("linux-arm64"), try variantPath("linux"), base.relativePath])
    XCTAssertEqual(first.compared?.relativePath, base.relativePath)

    let linux = ReferenceLocation(packageRoot: package.root, relativePath: try variantPath("linux"))
    try place(try sampleImage(seed: 2), at: linux)
    XCTAssertEqual(try chain(requested: "linux-arm64").compared?.relativePath, linux.relativePath)
  }

  func testResolve_noDeclaration_isTodaysBehaviour() throws {
    try FileManager.default.removeItem(
      at: package.root.appendingPathComponent(ReferenceVariants.fileName))

    XCTAssertNil(
      try VariantChain.resolve(
        base: try package.location("bars"), name: "bars", requested: "macos", generating: true))
  }

  func testResolve_nameWithTheMarker_isRefusedByName() throws {
    XCTAssertThrowsError(try chain("a@@b", requested: nil)) {
      XCTAssertEqual($0 as? VariantError, .markerInName("a@@b"))
      XCTAssertTrue("\($0)".contains("names may not contain '@@'"), "\($0)")
    }
  }

  func testResolve_undeclaredPlatform_verifiesAgainstTheBaseButRefusesToGenerate() throws {
    try declare(#"{"ios": []}"#, base: "macos-arm64")
    let platform = ReferencePlatform.current

    let verifying = try chain(requested: nil)
    XCTAssertEqual(verifying.running, .undeclared(platform: platform))
    XCTAssertEqual(verifying.own.relativePath, try package.location("bars").relativePath)
    XCTAssertTrue(verifying.note.contains("this platform, \(platform), is not declared"))
    XCTAssertThrowsError(try chain(requested: nil, generating: true)) {
      let message = "\($0)"
      XCTAssertTrue(message.contains("this platform, \(platform), is not declared"), message)
      XCTAssertTrue(message.contains("declared: ios; the base is macos-arm64"), message)
    }
  }

  func testAssertion_allModeOnAVariant_storesTheRenderAsTheVariantsOwnFile() throws {
    let coordinator = try coordinator(mode: "all", variant: "macos")
    try place(try sampleImage(seed: 1), at: try package.location("bars"))

    assertion(try sampleImage(seed: 1), coordinator: coordinator).run()

    let archive = try XCTUnwrap(coordinator.finishRun())
    let manifest = try XCTUnwrap(try ArchiveContents(archive).manifest)
    XCTAssertEqual(manifest.images.map(\.path), [try variantPath("macos")])
    XCTAssertEqual(manifest.variants, ["macos"], "the archive records the variant it ran as")
  }

  func testAssertion_scopedVariant_winsOverTheEnvironment() throws {
    let coordinator = try coordinator(mode: "all", variant: "linux")
    let image = try sampleImage(seed: 1)

    withReferenceImages(variant: "macos") { assertion(image, coordinator: coordinator).run() }
    withReferenceImages(variant: "base") {
      assertion(image, name: "flat", coordinator: coordinator).run()
    }

    let archive = try XCTUnwrap(coordinator.finishRun())
    let manifest = try XCTUnwrap(try ArchiveContents(archive).manifest)
    XCTAssertEqual(
      manifest.images.map(\.path),
      [try variantPath("macos"), try package.location("flat").relativePath])
    XCTAssertEqual(manifest.variants, ["base", "macos"], "each variant the assertions ran as")
    XCTAssertEqual(
      ReferenceImagesTrait.referenceImages(variant: "macos").settings,
      ReferenceImageSettings(variant: "macos"))
  }

  func testAssertion_verifyMismatch_namesTheComparedFileAndTheFilesLookedFor() throws {
    let coordinator = try coordinator(mode: "0", variant: "linux-arm64")
    let linux = ReferenceLocation(packageRoot: package.root, relativePath: try variantPath("linux"))
    try place(try sampleImage(seed: 1), at: try package.location("bars"))
    try place(try sampleImage(seed: 2), at: linux)

    capturing = true
    assertion(try sampleImage(seed: 3), coordinator: coordinator).run()
    capturing = false

    XCTAssertEqual(captured.count, 1, "\(captured)")
    let message = captured.first ?? ""
    XCTAssertTrue(message.contains(" - \(linux.relativePath): 384 of 384 pixels differ"), message)
    XCTAssertTrue(
      message.contains(
        "variant linux-arm64 looked for \(try variantPath("linux-arm64")), \(linux.relativePath), "
          + "\(try package.location("bars").relativePath); compared with \(linux.relativePath)"),
      message)
  }

  /// A private coordinator in `mode` writing into a fresh folder, running as `variant`.
  private func coordinator(mode: String, variant: String) throws -> ImageCoordinator {
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    return ImageCoordinator(
      environment: ImageTestEnvironment(environment: [
        "IMAGE_GENERATION_MODE": mode, "IMAGE_GENERATION_OUTPUT": output.path,
        "IMAGE_DIFF_DIR": output.appendingPathComponent("diffs").path,
        "IMAGE_REFERENCE_VARIANT": variant,
      ]))
  }

  private func assertion(
    _ image: RGBAImage, name: String = "bars", coordinator: ImageCoordinator
  ) -> ImageAssertion {
    var assertion = ImageAssertion(
      image: image, name: name, comparison: .exact, bound: .none, referenceFolder: nil,
      context: TestContext(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
      coordinator: coordinator)
    assertion.testFile = package.testFile()
    return assertion
  }
}
