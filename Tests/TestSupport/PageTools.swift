import Foundation

/// The programs that drive the review page in a real browser: the Python with Playwright that
/// `Scripts/install-dependencies --python-tools` installs in the checkout, and Chromium.
/// `Scripts/test` installs both, so a missing one fails the test, naming the fix.
public struct PageTools: Sendable {
  /// The Python with Playwright.
  public var python: String
  /// The Chromium executable.
  public var chromium: String

  /// Why a tool is missing, and how to install it.
  public struct Missing: Error, CustomStringConvertible {
    public var description: String
  }

  /// Finds both tools.
  /// - Parameter checkout: The package root this test bundle was built from.
  public init(checkout: URL) throws {
    let python = checkout.appendingPathComponent(".build/dev-tools/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw Missing(
        description: "\(python) is missing: run Scripts/install-dependencies --python-tools "
          + "(Scripts/test does) to install Playwright")
    }
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let found else {
      throw Missing(
        description: "chromium is not installed: run apt-get install chromium (Scripts/test "
          + "installs it)")
    }
    self.python = python
    chromium = found
  }
}
