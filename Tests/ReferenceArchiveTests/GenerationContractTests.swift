import Foundation
import ReferenceArchive
import XCTest

/// The plugin cannot import a package module, so it spells the variables it sets: every such
/// name in its sources must be one `GenerationContract` defines.
final class GenerationContractTests: XCTestCase {
  func testPlugin_setsOnlyTheContractsVariables() throws {
    let plugin = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Plugins/RegenerateReferences").standardizedFileURL
    let known: Set<String> = [
      GenerationContract.modeVariable, GenerationContract.outputVariable,
      GenerationContract.diffVariable, GenerationContract.shardVariable,
      GenerationContract.reencodeVariable, GenerationContract.replicasVariable,
      GenerationContract.referenceFolderVariable,
    ]
    var found: Set<String> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: plugin.path)
    where name.hasSuffix(".swift") {
      let text = try String(contentsOf: plugin.appendingPathComponent(name), encoding: .utf8)
      for match in text.matches(of: /"(IMAGE_[A-Z_]+)"/) { found.insert(String(match.output.1)) }
    }
    XCTAssertFalse(found.isEmpty, "the plugin sets the generation variables")
    XCTAssertTrue(found.isSubset(of: known), "unknown names: \(found.subtracting(known))")
  }

  /// The output folder's names the plugin reads are the contract's.
  func testPlugin_readsTheContractsOutputNames() throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Plugins/RegenerateReferences/Regeneration.swift")
    let text = try String(contentsOf: source.standardizedFileURL, encoding: .utf8)
    for name in [GenerationContract.stagingFolderName, GenerationContract.runRecordSuffix] {
      XCTAssertTrue(text.contains("\"\(name)\""), "the plugin spells \(name)")
    }
  }
}
