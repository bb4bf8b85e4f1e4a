import Foundation
import XCTest

/// The real outputs of Xcode and `xcresulttool` in `../shared/fixtures/imports`, beside the
/// checkout; read there, never copied into the repository.
enum RealFixtures {
  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/fixtures/imports")

  /// A fixture's URL, or a skip that names the missing folder.
  static func url(_ path: String) throws -> URL {
    guard FileManager.default.fileExists(atPath: folder.path) else {
      throw XCTSkip(
        "\(folder.path) is absent: the real result bundles live in ../shared beside the checkout")
    }
    return folder.appendingPathComponent(path)
  }

  static var screenshotbotBundle: URL { get throws { try url("screenshotbot/result12.xcresult") } }
  static var screenshotbotExport: URL {
    get throws { try url("screenshotbot/xcresults-attachments") }
  }
  static var xcparseBundle: URL { get throws { try url("xcparse/testHEIC.xcresult") } }
  static var iOSBundle: URL { get throws { try url("dbxcresultparser/SPM-26.1.1-iOS.xcresult") } }
  static var macOSBundle: URL {
    get throws { try url("dbxcresultparser/SPM-26.1.1-macOS.xcresult") }
  }
}
