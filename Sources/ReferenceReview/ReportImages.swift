import Foundation
import ReferenceArchive

/// The report's `images/` folder. A card's images go in a folder of their own per
/// `cardsPerFolder` cards (`images/12/12345-after.png`), so a fleet's report holds a few
/// thousand files a folder at most: file managers, `ls` and artifact uploads list it at once,
/// and the page still loads each image by its path.
struct ReportImages {
  /// Cards per folder: at most four files each (before, after, difference, fallback), or one
  /// per rival of a conflict.
  static let cardsPerFolder = 1_000

  /// The folder, `images/` of the report being written.
  let folder: URL

  /// The name inside `images/` of a card's image in `role` ("after", "rival-0", …).
  static func name(card id: Int, _ role: String) -> String {
    "\(id / cardsPerFolder)/\(id)-\(role).png"
  }

  /// Writes an image under its name, making its folder when it is the first of it.
  func write(_ bytes: [UInt8], as name: String) throws(ReviewError) {
    let file = folder.appendingPathComponent(name)
    try ReviewError.catching { () throws(ArchiveError) in
      try FileSystem.createFolder(file.deletingLastPathComponent())
      try FileSystem.write(bytes, to: file)
    }
  }

  /// An image of the report, read back; nil when it cannot be read.
  func read(_ name: String) -> [UInt8]? {
    try? FileSystem.read(folder.appendingPathComponent(name))
  }
}
