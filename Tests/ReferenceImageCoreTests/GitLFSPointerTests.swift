import Foundation
import ReferenceImageCore
import XCTest

/// Git LFS pointer files where a PNG was expected. `__Fixtures__/lfs/rgb8_33x17.png` was written
/// by git-lfs 3.3.0 (`git lfs pointer --file=png/rgb8_33x17.png`).
final class GitLFSPointerTests: XCTestCase {
  private func pointerBytes() throws -> [UInt8] {
    try CoreFixtures.bytes("lfs/rgb8_33x17.png")
  }

  func testPointer_writtenByGitLFS_isRecognisedAndParsed() throws {
    let bytes = try pointerBytes()
    XCTAssertTrue(GitLFSPointer.isPointer(bytes))
    let pointer = try XCTUnwrap(GitLFSPointer(bytes))
    let png = try CoreFixtures.bytes("png/rgb8_33x17.png")
    XCTAssertEqual(pointer.size, png.count)
    XCTAssertEqual(
      pointer.objectID, "sha256:cdec99e3851a112f2b2c1522b099a82e0f53c9f86fa2f83d2f57360f718459b5")
    XCTAssertEqual(
      pointer.description, "a Git LFS pointer to a 1768-byte file (sha256:cdec99e3851a…)")
  }

  func testIsPointer_otherFiles_areNot() throws {
    XCTAssertFalse(GitLFSPointer.isPointer(try CoreFixtures.bytes("png/rgb8_33x17.png")))
    XCTAssertFalse(GitLFSPointer.isPointer([UInt8]()))
    XCTAssertFalse(GitLFSPointer.isPointer(Array("version 1\nsize 3\n".utf8)))
    XCTAssertFalse(
      GitLFSPointer.isPointer(Array("Version https://git-lfs.github.com/spec/v1".utf8)))
    // A large file that happens to start with the line is content, not a pointer.
    let large = Array(GitLFSPointer.prefix.utf8) + [UInt8](repeating: 0x20, count: 2000)
    XCTAssertFalse(GitLFSPointer.isPointer(large))
    XCTAssertNil(GitLFSPointer(large))
  }

  func testPointer_withoutOidOrSize_isStillAPointer() throws {
    let pointer = try XCTUnwrap(
      GitLFSPointer(Array("version https://git-lfs.github.com/spec/v1\n".utf8)))
    XCTAssertNil(pointer.objectID)
    XCTAssertNil(pointer.size)
    XCTAssertEqual(pointer.description, "a Git LFS pointer")
  }

  func testDecode_pointer_throwsGitLFSPointerNamingGitLFSPull() throws {
    let bytes = try pointerBytes()
    XCTAssertThrowsError(try PNGDecoder().decode(bytes)) { error in
      guard case .gitLFSPointer(let pointer)? = error as? PNGError else {
        return XCTFail("unexpected error \(error)")
      }
      XCTAssertEqual(pointer.size, 1768)
      let text = "\(error)"
      XCTAssertTrue(text.contains("Git LFS pointer"), text)
      XCTAssertTrue(text.contains("`git lfs pull`"), text)
      XCTAssertFalse(text.contains("malformed"), text)
      CoreFixtures.assertReadable(error)
    }
    XCTAssertThrowsError(try PNGDecoder().size(of: bytes)) {
      guard case .gitLFSPointer? = $0 as? PNGError else { return XCTFail("unexpected \($0)") }
    }
  }
}
