import Foundation
import ReferenceArchive
import ReferenceContracts
import SyntheticBundles
import TestSupport
import XCTest

/// Export folders and attachments that must not land: names that climb, links, zips that are
/// not this package's archives.
final class HostileExportTests: XCTestCase {
  private func export(_ file: String, in folder: URL) throws -> URL {
    let export = folder.appendingPathComponent("export")
    let manifest = """
      [{"testIdentifier": "SnapTests/testTitle()", "attachments": [
        {"exportedFileName": "\(file)", "suggestedHumanReadableName": "testTitle.1_0_\(UUID().uuidString).png",
         "configurationName": "Default", "deviceName": "iPhone 16"}]}]
      """
    try writeFile(Array(manifest.utf8), to: export.appendingPathComponent("manifest.json"))
    return export
  }

  private func destination(in folder: URL) throws -> URL {
    let destination = folder.appendingPathComponent("package")
    try writeFile(
      try samplePNG(1),
      to: destination.appendingPathComponent(
        "Tests/AppTests/__Snapshots__/SnapTests/testTitle.1.png"))
    return destination
  }

  func testAnExportedFileNameThatClimbsIsRefused() throws {
    let folder = try makeTemporaryFolder(self)
    let export = try export("../outside.png", in: folder)
    try writeFile(try samplePNG(2), to: folder.appendingPathComponent("outside.png"))
    let destination = try destination(in: folder)
    let before = try contents(of: destination)
    let run = try mergeRefs([export.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.refusedInput.rawValue, run.all)
    XCTAssertTrue(run.all.contains("exported file '../outside.png'"), run.all)
    XCTAssertEqual(try contents(of: destination), before)
  }

  func testAnExportedFileThatIsALinkIsRefused() throws {
    let folder = try makeTemporaryFolder(self)
    let export = try export("link.png", in: folder)
    try writeFile(try samplePNG(2), to: folder.appendingPathComponent("outside.png"))
    try FileManager.default.createSymbolicLink(
      at: export.appendingPathComponent("link.png"),
      withDestinationURL: folder.appendingPathComponent("outside.png"))
    let destination = try destination(in: folder)
    let before = try contents(of: destination)
    let run = try mergeRefs([export.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.refusedInput.rawValue, run.all)
    XCTAssertTrue(run.all.contains("link.png"), run.all)
    XCTAssertTrue(run.all.contains("symbolic link is never followed"), run.all)
    XCTAssertEqual(try contents(of: destination), before)
  }

  func testAZipThatIsNotThisPackagesArchiveIsListedNotLanded() throws {
    let folder = try makeTemporaryFolder(self)
    let zip = folder.appendingPathComponent("logs.zip")
    try ZipWriter().write(
      [
        ZipWriter.Entry(
          path: "Tests/AppTests/__References__/chart.png", contents: .bytes(try samplePNG(3)))
      ],
      to: zip)
    var bundle = SyntheticBundle(url: folder.appendingPathComponent("Run.xcresult"))
    try bundle.write([
      .init(
        identifier: "AppTests/testRender()",
        attachments: [
          .init(
            fileName: "logs.zip", typeIdentifier: "public.zip-archive",
            bytes: Array(try Data(contentsOf: zip)))
        ])
    ])
    let destination = try destination(in: folder)
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.all.contains("logs.zip (AppTests/testRender()"), run.all)
    XCTAssertTrue(run.all.contains("a zip without this package's manifest"), run.all)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: destination.appendingPathComponent("Tests/AppTests/__References__/chart.png").path))
  }
}

/// A result bundle zipped whole (a CI artifact as downloaded, `Run.xcresult.zip`) is refused
/// with the command that unzips it, never read as PNG entries; both layouts of such zips.
final class ZippedResultBundleTests: XCTestCase {
  /// The real bundle's files, zipped under `prefix`.
  private func zipped(_ prefix: String, name: String, in folder: URL) throws -> URL {
    let bundle = try RealFixtures.screenshotbotBundle
    var entries: [ZipWriter.Entry] = []
    let walk = FileManager.default.enumerator(atPath: bundle.path)
    while let path = walk?.nextObject() as? String {
      let url = bundle.appendingPathComponent(path)
      guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { continue }
      entries.append(
        ZipWriter.Entry(
          path: prefix + path, contents: .bytes(Array(try Data(contentsOf: url)))))
    }
    let zip = folder.appendingPathComponent(name)
    try ZipWriter().write(entries.sorted { $0.path < $1.path }, to: zip)
    return zip
  }

  func testAnArtifactZipOfABundle_isRefusedWithTheUnzipCommand() throws {
    let folder = try makeTemporaryFolder(self)
    let zip = try zipped("", name: "Run.xcresult.zip", in: folder)
    let destination = folder.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let run = try mergeRefs([zip.path, destination.path])
    XCTAssertEqual(run.exitStatus, .refusedInput, run.all)
    XCTAssertTrue(run.all.contains("a zipped Xcode result bundle"), run.all)
    XCTAssertTrue(
      run.all.contains(
        "mkdir Run.xcresult && unzip -q Run.xcresult.zip -d Run.xcresult, then pass Run.xcresult"),
      run.all)
    XCTAssertEqual(try contents(of: destination), [:])
  }

  func testAZipHoldingTheBundleFolder_namesTheFolderToPass() throws {
    let folder = try makeTemporaryFolder(self)
    let zip = try zipped("result12.xcresult/", name: "artifact.zip", in: folder)
    let run = try mergeRefs(["--dry-run", zip.path, folder.path])
    XCTAssertEqual(run.exitStatus, .refusedInput, run.all)
    XCTAssertTrue(
      run.all.contains("unzip -q artifact.zip, then pass result12.xcresult"), run.all)
    XCTAssertTrue(run.all.contains("result12.xcresult/Info.plist"), run.all)
  }
}
