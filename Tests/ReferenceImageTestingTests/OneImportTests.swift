// This file imports ReferenceImageTesting and nothing of ReferenceImageCore: it compiles only
// because ReferenceImageTesting re-exports the core types a render test names.
import ReferenceImageTesting
import XCTest

final class OneImportTests: XCTestCase {
  func testCoreTypes_areNamedWithTheTestingImportAlone() throws {
    let red = RGBAColor(red: 255, green: 0, blue: 0)
    let image: RGBAImage = try RGBAImage(width: 3, height: 2, color: red)
    var changed = image
    changed[1, 1] = RGBAColor(red: 0, green: 0, blue: 255)
    let comparison: ImageComparison = .exact
    let oneAllowed: DifferenceBound = .maximumDifferingPixels(1)

    XCTAssertTrue(comparison.compare(changed, to: image, bound: oneAllowed).passed)
    XCTAssertFalse(comparison.compare(changed, to: image, bound: .none).passed)
  }
}
