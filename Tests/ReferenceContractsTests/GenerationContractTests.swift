import Foundation
import ReferenceContracts
import XCTest

/// The plugin cannot import a package module: it compiles the contract's files that import
/// nothing through links in its folder, so the names it uses are the package's own.
final class GenerationContractTests: XCTestCase {
  func testPlugin_linksTheContractsFiles() throws {
    let plugin = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Plugins/RegenerateReferences").standardizedFileURL
    let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/ReferenceContracts").standardizedFileURL
    for name in ["GenerationContract.swift", "ExitStatus.swift", "RunMode.swift"] {
      let link = plugin.appendingPathComponent(name)
      let target = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
      XCTAssertEqual(
        URL(fileURLWithPath: target, relativeTo: plugin).standardizedFileURL.path,
        contracts.appendingPathComponent(name).path, "\(name) is the contract's file")
      let text = try String(contentsOf: link, encoding: .utf8)
      XCTAssertFalse(text.contains("\nimport "), "\(name) must import nothing to link")
    }
  }

  /// Every generation variable and output name the plugin uses comes from the contract: its
  /// own sources spell none.
  func testPlugin_spellsNoContractName() throws {
    let plugin = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Plugins/RegenerateReferences").standardizedFileURL
    let names = [
      GenerationContract.modeVariable, GenerationContract.outputVariable,
      GenerationContract.replicasVariable, GenerationContract.runRecordSuffix,
      GenerationContract.stagingFolderName,
    ]
    for file in ["Regeneration.swift", "RegenerationRequest.swift", "RegenerateReferences.swift"] {
      let text = try String(
        contentsOf: plugin.appendingPathComponent(file), encoding: .utf8)
      for name in names {
        XCTAssertFalse(text.contains("\"\(name)\""), "\(file) spells \(name) itself")
      }
      XCTAssertNil(
        text.firstMatch(of: /"IMAGE_[A-Z_]+"/), "\(file) spells a generation variable itself")
    }
  }
}
